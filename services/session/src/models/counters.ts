import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Metrics counters, updated on each write so that metrics never scan sessions.
 * `session_counters`: one document per organization (`_id` = orgId) with `total` and
 * `cs.<channelKey>.<status>` counts (channelKey is the channel without spaces).
 * `session_daily`: one document per organization and UTC day of start time
 * (`_id` = `<orgId>:<YYYY-MM-DD>`) with `h.<HH>` = sessions started in that hour.
 * `session_hourly`: one document per organization and UTC hour of start time
 * (`_id` = `<orgId>:<YYYY-MM-DDTHH>`) with `n` and `s.<second of hour>` counts, which resolve the
 * 24-hour window's edge to the second. Recent Sessions reads 2 daily and 1 hourly document.
 */
export interface CounterDoc {
  _id: string;
  total: number;
  cs: Record<string, Record<string, number>>;
  updatedAt: Date;
}

const counterSchema = new Schema<CounterDoc>(
  {
    _id: { type: String, required: true },
    total: { type: Number, default: 0 },
    cs: { type: Schema.Types.Mixed, default: {} },
    updatedAt: Date,
  },
  { versionKey: false, minimize: false },
);
// Read and updated by `_id` (orgId) only.

export interface HourlyDoc {
  _id: string;
  orgId: string;
  hour: Date;
  n: number;
  s: Record<string, number>;
}

const hourlySchema = new Schema<HourlyDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    hour: { type: Date, required: true },
    n: { type: Number, default: 0 },
    s: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
// Read (the window's edge hour) and updated by `_id` only: no secondary index.

export interface DailyDoc {
  _id: string;
  orgId: string;
  day: Date;
  h: Record<string, number>;
}

const dailySchema = new Schema<DailyDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    day: { type: Date, required: true },
    h: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
// Read and updated by `_id` only (the two days the 24-hour window spans).

export function dailyModel(conn: Connection) {
  return modelOn<DailyDoc>(conn, 'SessionDaily', dailySchema, 'session_daily');
}

export function counterModel(conn: Connection) {
  return modelOn<CounterDoc>(conn, 'SessionCounter', counterSchema, 'session_counters');
}

export function hourlyModel(conn: Connection) {
  return modelOn<HourlyDoc>(conn, 'SessionHourly', hourlySchema, 'session_hourly');
}

export const channelKey = (channel: string) => channel.replace(/\s+/g, '');

export function dayKey(orgId: string, ms: number): string {
  return `${orgId}:${new Date(ms).toISOString().slice(0, 10)}`;
}

/** `HH` of a UTC time, the field of its hour in a daily document. */
export const hourField = (ms: number) => new Date(ms).toISOString().slice(11, 13);

export function hourKey(orgId: string, hourStartMs: number): string {
  return `${orgId}:${new Date(hourStartMs).toISOString().slice(0, 13)}`;
}
