import jsonata from 'jsonata';
import { StepFailure } from './step-failure.ts';

/**
 * JSONata, the expression language of transform and condition steps and of `{{ … }}` templates. It
 * is an interpreter over JSON data: no access to the process, no eval. Each evaluation is bounded
 * in time, depth and sequence size. Compiled expressions are cached (the same few run again and again).
 */
const limits = { timeout: 1_000, stack: 300, sequence: 100_000 };
const cache = new Map<string, jsonata.Expression>();
const cacheSize = 2_000;

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; position?: number; token?: string };
  const where = e.position !== undefined ? ` (at position ${e.position})` : '';
  return `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}${where}`;
}

export function compile(expression: string): jsonata.Expression {
  let compiled = cache.get(expression);
  if (!compiled) {
    try {
      compiled = jsonata(expression, limits as jsonata.JsonataOptions);
    } catch (err) {
      throw new StepFailure('expression', `Invalid expression: ${describe(err)}`);
    }
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
    cache.set(expression, compiled);
  }
  return compiled;
}

/** JSONata sequences and `undefined` (no match) become plain JSON values. */
function toJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

export async function evaluate(expression: string, data: unknown): Promise<unknown> {
  const compiled = compile(expression);
  try {
    return toJson(await compiled.evaluate(data));
  } catch (err) {
    throw new StepFailure('expression', `Expression failed: ${describe(err)}`);
  }
}

const part = /\{\{([\s\S]+?)\}\}/g;
const whole = /^\s*\{\{([\s\S]+?)\}\}\s*$/;

/** The expressions inside `{{ … }}` of a template. */
export function templateExpressions(template: string): string[] {
  return [...template.matchAll(part)].map((m) => m[1]!.trim());
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A template alone (`"{{ steps.a.output }}"`) keeps the value's type; mixed with text, each part is
 * written as text (objects as JSON).
 */
export async function renderTemplate(template: string, data: unknown): Promise<unknown> {
  const alone = whole.exec(template);
  if (alone && !alone[1]!.includes('{{')) return evaluate(alone[1]!.trim(), data);
  if (!template.includes('{{')) return template;
  const values = await Promise.all(templateExpressions(template).map((e) => evaluate(e, data)));
  let i = 0;
  return template.replace(part, () => asText(values[i++]));
}

/** Renders every string inside a JSON value (object keys stay as they are). */
export async function renderValue(value: unknown, data: unknown): Promise<unknown> {
  if (typeof value === 'string') return renderTemplate(value, data);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderValue(v, data)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await renderValue(v, data);
    return out;
  }
  return value;
}

export async function renderText(template: string, data: unknown): Promise<string> {
  return asText(await renderTemplate(template, data));
}
