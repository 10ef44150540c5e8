import { z } from 'zod';

/** Small schemas several integration modules share. */
export const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048);

/** Header names as maps keys: letters, digits, `-` and `_` (no `.` or `$`, which FerretDB refuses). */
export const HeaderMap = z
  .record(
    z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'header names: letters, digits, - and _'),
    z.string().max(4096),
  )
  .refine((h) => Object.keys(h).length <= 30, 'at most 30 headers');

/** E.164 phone number: `+` and up to 15 digits. */
export const PhoneNumber = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +15551234567');

export const Secret = z.string().min(1).max(4096);

/** Header maps with lower-case names, so that merging maps replaces rather than duplicates a header. */
export function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
