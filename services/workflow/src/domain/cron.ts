import { CronExpressionParser } from 'cron-parser';

/** The first tick strictly after `after`, in the schedule's time zone. */
export function nextTick(cron: string, timezone: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: after }).next().toDate();
}

/** The last tick at or before `at`. */
export function lastTickAtOrBefore(cron: string, timezone: string, at: Date): Date {
  return CronExpressionParser.parse(cron, { tz: timezone, currentDate: new Date(at.getTime() + 1) })
    .prev()
    .toDate();
}

/** A message for a bad cron expression or time zone, or undefined when both are fine. */
export function cronProblem(cron: string, timezone: string): { field: string; message: string } | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    return { field: 'triggerConfig.timezone', message: `unknown time zone "${timezone}"` };
  }
  const fields = cron.trim().split(/\s+/).length;
  if (!cron.trim().startsWith('@') && (fields < 5 || fields > 6)) {
    return { field: 'triggerConfig.cron', message: 'must have 5 fields (or 6 with seconds first)' };
  }
  try {
    nextTick(cron, timezone, new Date());
  } catch (err) {
    return {
      field: 'triggerConfig.cron',
      message: `is not a valid cron expression: ${(err as Error).message}`,
    };
  }
  return undefined;
}
