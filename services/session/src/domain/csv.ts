import type { SessionSummary } from '@platform/contracts';

export const csvHeader = ['id', 'agent', 'channel', 'type', 'status', 'start', 'end', 'duration'];

/**
 * One RFC 4180 field: quoted when it holds a comma, quote, CR or LF (quotes doubled). A value that a
 * spreadsheet would run as a formula (starting with = + - @, tab or CR) gets a leading apostrophe,
 * the usual CSV-injection guard (OWASP).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRow(fields: string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The list's visible columns; `duration` is minutes, or "Ongoing" while Active. */
export function sessionCsvRow(s: SessionSummary): string {
  return csvRow([
    s.id,
    s.agentName,
    s.channel,
    s.sessionType,
    s.status,
    s.startTime,
    s.endTime ?? '',
    s.duration === null ? 'Ongoing' : String(s.duration),
  ]);
}
