import type { Step } from '@platform/contracts';
import type { ExecutionDeps } from '../deps.ts';

export type StepOf<T extends Step['type']> = Extract<Step, { type: T }>;

/** What expressions see: `input`, `steps.<id>.output` (and status, error), `execution`. */
export interface ExpressionData {
  input: unknown;
  steps: Record<string, { output?: unknown; status: string; error?: unknown }>;
  execution: { id: string; workflowId: string; workflowVersion: number; trigger: unknown };
}

export interface StepRunContext {
  deps: ExecutionDeps;
  execution: { id: string; orgId: string; workflowId: string; workflowVersion: number };
  data: ExpressionData;
  /** Aborted on cancellation and when the step's timeout passes. */
  signal: AbortSignal;
  timeoutMs: number;
  attempt: number;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string, data?: unknown) => void;
}

export interface StepResult {
  output: unknown;
  /** A condition's choice; absent: the step's `next` or the following step. */
  next?: string;
}
