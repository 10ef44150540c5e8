import jsonata from 'jsonata';
import type { FieldError, Step, TriggerKind } from '@platform/contracts';
import { ValidationError } from '@platform/kit';
import { cronProblem } from './cron.ts';

/**
 * What the schema cannot check: every JSONata expression and `{{ … }}` template compiles, and a
 * schedule's cron expression and time zone are valid. All problems are reported at once, each
 * naming its field (`steps.2.settings.expression`).
 */
const part = /\{\{([\s\S]+?)\}\}/g;

function compileError(expression: string): string | undefined {
  try {
    jsonata(expression);
    return undefined;
  } catch (err) {
    const e = err as { code?: string; message?: string; position?: number };
    return `is not a valid expression: ${e.code ? `${e.code} ` : ''}${e.message ?? ''}${
      e.position !== undefined ? ` (at position ${e.position})` : ''
    }`;
  }
}

function checkTemplates(value: unknown, field: string, errors: FieldError[]) {
  if (typeof value === 'string') {
    for (const m of value.matchAll(part)) {
      const problem = compileError(m[1]!.trim());
      if (problem) errors.push({ field, message: `template ${problem}`, location: 'body' });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkTemplates(v, `${field}.${i}`, errors));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) checkTemplates(v, `${field}.${k}`, errors);
  }
}

function checkExpression(expression: string, field: string, errors: FieldError[]) {
  const problem = compileError(expression);
  if (problem) errors.push({ field, message: problem, location: 'body' });
}

export function validateDefinition(def: {
  steps: Step[];
  trigger: TriggerKind;
  triggerConfig?: Record<string, unknown>;
}) {
  const errors: FieldError[] = [];
  def.steps.forEach((step, i) => {
    const at = `steps.${i}.settings`;
    switch (step.type) {
      case 'transform':
        checkExpression(step.settings.expression, `${at}.expression`, errors);
        break;
      case 'condition':
        step.settings.branches.forEach((b, j) => checkExpression(b.when, `${at}.branches.${j}.when`, errors));
        break;
      default:
        checkTemplates(step.settings, at, errors);
    }
  });
  if (def.trigger === 'schedule') {
    const cfg = def.triggerConfig as { cron: string; timezone?: string };
    const problem = cronProblem(cfg.cron, cfg.timezone ?? 'UTC');
    if (problem) errors.push({ ...problem, location: 'body' });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}
