import type { ZodType } from 'zod';
import type { FieldError } from '@platform/contracts';
import { ValidationError } from '../errors.ts';

type Location = FieldError['location'];

/** zod issues → field errors that name the bad field (and each unknown key on its own). */
export function toFieldErrors(issues: readonly unknown[], location?: Location): FieldError[] {
  const out: FieldError[] = [];
  for (const raw of issues) {
    const issue = raw as { code?: string; path: PropertyKey[]; message: string; keys?: string[] };
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      for (const key of issue.keys) {
        out.push({ field: base ? `${base}.${key}` : key, message: 'is not a known field', location });
      }
    } else {
      out.push({ field: base || '(root)', message: issue.message, location });
    }
  }
  return out;
}

/** Parses input with a schema or throws a ValidationError naming each bad field. */
export function parseInput<T>(schema: ZodType<T>, input: unknown, location: Location): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(toFieldErrors(result.error.issues, location));
}
