import type { z, ZodRawShape, ZodType } from 'zod';
import type { AuthKind, IntegrationCategory } from '@platform/contracts';
import type { Logger } from '@platform/kit';
import type { ActionHttp } from './outbound.ts';

/**
 * What an integration module is: its catalog entry (id, name, category, auth kinds), the zod schemas
 * of a connection's credentials and settings, an optional harmless test call, and its actions.
 * Adding an integration is one module exporting a `defineIntegration(...)` and one registry line.
 */
export interface ActionContext<C, S> {
  credentials: C;
  settings: S;
  /** The service's parsed config: modules read the base-URL variables they declared in `env`. */
  env: Record<string, unknown>;
  /** Outbound HTTP under the address policy and the action's deadline, with typed errors. */
  http: ActionHttp;
  /** Whether private/loopback addresses may be reached (non-HTTP transports apply it themselves). */
  allowPrivateNetwork: boolean;
  /** Epoch ms by which the action must be done. */
  deadline: number;
  connectionId: string;
  /** Id of the logical call, used as the third party's idempotency key where it has one. */
  requestId?: string;
  log: Logger;
}

export interface ActionDefinition<C, S, I extends ZodType = ZodType, O extends ZodType = ZodType> {
  description: string;
  input: I;
  output: O;
  run: (ctx: ActionContext<C, S>, input: z.infer<I>) => Promise<z.input<O>>;
}

export interface TestOutcome {
  /** False when the integration has no way to check the credentials without side effects. */
  verified: boolean;
  message?: string;
}

export interface IntegrationDefinition<C = unknown, S = unknown> {
  id: string;
  name: string;
  description: string;
  category: IntegrationCategory;
  /** How error messages name the third party ("The webhook receiver"); default: `name`. */
  who?: string;
  /** The first one is the main kind; with several, credentials carry `authKind` to choose. */
  authKinds: [AuthKind, ...AuthKind[]];
  credentials: ZodType<C>;
  settings: ZodType<S>;
  /** Environment variables the module reads (base URLs), merged into the service's config schema. */
  env?: ZodRawShape;
  /** The auth kind a parsed credentials object uses. */
  authKindOf?: (credentials: C) => AuthKind;
  /** Verifies credentials with a call that changes nothing; throws the typed errors of outbound.ts. */
  test?: (ctx: ActionContext<C, S>) => Promise<TestOutcome>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  actions: Record<string, ActionDefinition<C, S, any, any>>;
}

/** Type helper: the action builder of an integration whose credentials and settings are C and S. */
export function actionsFor<C, S>() {
  return <I extends ZodType, O extends ZodType>(def: ActionDefinition<C, S, I, O>) => def;
}

export function defineIntegration<C, S>(def: IntegrationDefinition<C, S>): IntegrationDefinition<C, S> {
  return def;
}
