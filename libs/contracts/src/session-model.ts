import { z } from './zod.ts';
import { Id, PageQuery, pageOf } from './common.ts';

/** Sessions: the resources, their wire schemas and the list/export queries (see session.ts). */

export const sessionChannels = ['Web', 'Phone', 'Telegram', 'WhatsApp', 'Mobile SDK', 'SIP'] as const;
export const sessionTypes = ['chat', 'voice', 'video'] as const;
export const sessionStatuses = ['Active', 'Completed', 'Failed', 'Cancelled'] as const;
export const endStatuses = ['Completed', 'Failed', 'Cancelled'] as const;
export const systemEventTypes = [
  'connection_established',
  'disconnection',
  'error',
  'agent_handoff',
  'status_change',
] as const;

export const SessionChannel = z.enum(sessionChannels);
export type SessionChannel = z.infer<typeof SessionChannel>;
export const SessionType = z.enum(sessionTypes);
export type SessionType = z.infer<typeof SessionType>;
export const SessionStatus = z.enum(sessionStatuses);
export type SessionStatus = z.infer<typeof SessionStatus>;
export const EndStatus = z.enum(endStatuses);
export type EndStatus = z.infer<typeof EndStatus>;

/** Session ids are UUID v4 (random from the first character: the dashboard shows 8 of them). */
export const SessionId = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.uuidv4())
  .openapi({ description: 'UUID v4', example: '3f2a9c1e-7b4d-4e8a-9c2f-1d3e5a7b9c0d' });

const Timestamp = z.iso.datetime({ offset: true });

// --- Metadata --------------------------------------------------------------------------------------------

/** Limits of client metadata: FerretDB refuses keys with '.' or a leading '$', and list rows stay small. */
export const metadataLimits = {
  maxDepth: 3,
  maxKeys: 50,
  maxKeyLength: 64,
  maxStringLength: 1000,
  maxBytes: 8192,
};

type MetaIssue = { path: (string | number)[]; message: string };

function checkMetadata(
  value: unknown,
  path: (string | number)[],
  depth: number,
  state: { keys: number },
): MetaIssue[] {
  if (value === null || typeof value === 'boolean') return [];
  if (typeof value === 'number')
    return Number.isFinite(value) ? [] : [{ path, message: 'must be a finite number' }];
  if (typeof value === 'string') {
    return value.length > metadataLimits.maxStringLength
      ? [{ path, message: `must be at most ${metadataLimits.maxStringLength} characters` }]
      : [];
  }
  if (depth >= metadataLimits.maxDepth)
    return [{ path, message: `nests deeper than ${metadataLimits.maxDepth} levels` }];
  if (Array.isArray(value)) {
    if (value.length > 50) return [{ path, message: 'must have at most 50 items' }];
    return value.flatMap((v, i) => checkMetadata(v, [...path, i], depth + 1, state));
  }
  if (typeof value !== 'object')
    return [{ path, message: 'must be a string, number, boolean, null, array or object' }];
  const issues: MetaIssue[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    state.keys++;
    if (key.length === 0 || key.length > metadataLimits.maxKeyLength)
      issues.push({
        path: [...path, key],
        message: `key must be 1–${metadataLimits.maxKeyLength} characters`,
      });
    else if (key.includes('.') || key.startsWith('$') || key.includes('\u0000'))
      issues.push({ path: [...path, key], message: "key must not contain '.' or NUL nor start with '$'" });
    else issues.push(...checkMetadata(v, [...path, key], depth + 1, state));
  }
  return issues;
}

/** Client key-value pairs (user information, tags, context, business data), size and depth limited. */
export const SessionMetadata = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const state = { keys: 0 };
    for (const issue of checkMetadata(value, [], 0, state)) ctx.addIssue({ code: 'custom', ...issue });
    if (state.keys > metadataLimits.maxKeys)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `must have at most ${metadataLimits.maxKeys} keys in all`,
      });
    if (new TextEncoder().encode(JSON.stringify(value)).length > metadataLimits.maxBytes)
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `must be at most ${metadataLimits.maxBytes} bytes as JSON`,
      });
  })
  .openapi({
    description: `Client key-value pairs; at most ${metadataLimits.maxKeys} keys, ${metadataLimits.maxDepth} levels, ${metadataLimits.maxBytes} bytes; keys without '.' and not starting with '$'`,
  });
export type SessionMetadata = z.infer<typeof SessionMetadata>;

// --- Resources -------------------------------------------------------------------------------------------

export const SessionMessage = z
  .object({
    position: z.number().int().min(1).openapi({ description: 'Place in the transcript, from 1' }),
    sender: z.enum(['user', 'agent']),
    content: z.string(),
    timestamp: Timestamp,
  })
  .openapi('SessionMessage');
export type SessionMessage = z.infer<typeof SessionMessage>;

export const SessionSystemEvent = z
  .object({
    id: z.string(),
    type: z.enum(systemEventTypes),
    timestamp: Timestamp,
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('SessionSystemEvent');
export type SessionSystemEvent = z.infer<typeof SessionSystemEvent>;

export const SessionSummary = z
  .object({
    id: z.string().openapi({ description: 'UUID v4' }),
    agentId: Id,
    agentName: z.string(),
    agentVersion: z.string(),
    channel: SessionChannel,
    sessionType: SessionType,
    status: SessionStatus,
    startTime: Timestamp,
    endTime: Timestamp.optional().openapi({ description: 'Absent while the session is Active' }),
    duration: z
      .number()
      .nullable()
      .openapi({ description: 'Minutes (two decimals) once ended; null while Active' }),
    durationDisplay: z
      .string()
      .openapi({ description: '"Ongoing" while Active, else e.g. "12.5 min"', example: 'Ongoing' }),
    endReason: z.string().optional(),
    messageCount: z.number().int(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('Session');
export type SessionSummary = z.infer<typeof SessionSummary>;

export const SessionDetail = SessionSummary.extend({
  messages: z.array(SessionMessage).openapi({ description: 'The first page of the transcript' }),
  messagesNextAfter: z.number().int().nullable().openapi({
    description: 'Pass as `after` to /sessions/{id}/messages for the next page; null at the end',
  }),
  systemEvents: z.array(SessionSystemEvent),
  systemEventsNextCursor: z.string().nullable(),
}).openapi('SessionDetail');
export type SessionDetail = z.infer<typeof SessionDetail>;

export const SessionPage = pageOf(SessionSummary).openapi('SessionPage');

export const SessionChannelCount = z.object({ channel: SessionChannel, count: z.number().int() });

export const SessionMetrics = z
  .object({
    totalSessions: z
      .number()
      .int()
      .openapi({ description: 'All sessions since the organization was created' }),
    activeSessions: z.number().int(),
    recentSessions: z.number().int().openapi({ description: 'Started in the last 24 hours (to the second)' }),
    topChannel: SessionChannelCount.nullable().openapi({
      description: 'Most used channel; null before any session',
    }),
    byChannel: z.array(SessionChannelCount).openapi({ description: 'Every channel, most used first' }),
    byStatus: z.record(SessionStatus, z.number().int()),
    generatedAt: Timestamp,
  })
  .openapi('SessionMetrics');
export type SessionMetrics = z.infer<typeof SessionMetrics>;

// --- Queries ---------------------------------------------------------------------------------------------

/** `?channel=Web&channel=Phone` or `?channel=Web,Phone`; any other value is a 400 naming it. */
function multiEnum<T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v, ctx) => {
      const items = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim());
      const bad = items.filter((s) => !(values as readonly string[]).includes(s));
      if (bad.length > 0 || items.length === 0) {
        ctx.addIssue({
          code: 'custom',
          message: `${bad.map((b) => `"${b}"`).join(', ') || 'empty value'} is not one of ${values.join(', ')}`,
        });
        return z.NEVER;
      }
      return [...new Set(items)] as T[number][];
    })
    .openapi({
      type: 'string',
      description: `One or several of ${values.join(', ')} (repeat or comma-separate)`,
    });
}

/** A date-time with offset, or a date (`from`: its start, `to`: its end, UTC). */
const DateBound = z
  .string()
  .refine((s) => Timestamp.safeParse(s).success || z.iso.date().safeParse(s).success, {
    message: 'must be an ISO 8601 date-time with offset or a date (YYYY-MM-DD)',
  })
  .openapi({ example: '2025-01-31T00:00:00Z' });

export const SessionFilters = z.object({
  search: z.string().trim().max(200).optional().openapi({
    description:
      'Matches the start of a session id, of an agent name (or a word of it) or of a metadata value (or a word of it); case-insensitive',
  }),
  from: DateBound.optional().openapi({ description: 'Start time ≥ this' }),
  to: DateBound.optional().openapi({ description: 'Start time ≤ this (a date means its end)' }),
  channel: multiEnum(sessionChannels).optional(),
  status: multiEnum(sessionStatuses).optional(),
  agentId: Id.optional(),
});
export type SessionFilters = z.infer<typeof SessionFilters>;

export const SessionListQuery = SessionFilters.extend(PageQuery.shape);
export type SessionListQuery = z.infer<typeof SessionListQuery>;

export const SessionExportQuery = SessionFilters.extend({
  format: z.enum(['csv', 'json']).default('csv'),
  cursor: z.string().max(512).optional().openapi({ description: 'Resume after a list `nextCursor`' }),
  after: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: 'Resume after this session id (the last row received)' }),
});
export type SessionExportQuery = z.infer<typeof SessionExportQuery>;

export const SessionIdParams = z.object({ id: z.string().min(1).max(64) });

export const SessionDetailQuery = z.object({
  messagesLimit: z.coerce.number().int().min(1).max(500).default(100),
  eventsLimit: z.coerce.number().int().min(1).max(500).default(100),
});

export const SessionMessagesQuery = z.object({
  after: z.coerce.number().int().min(0).default(0).openapi({ description: 'Messages with position > after' }),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const SessionMessagesPage = z
  .object({ items: z.array(SessionMessage), nextAfter: z.number().int().nullable() })
  .openapi('SessionMessagePage');

export const SessionEventsQuery = z.object({
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const SessionEventsPage = z
  .object({ items: z.array(SessionSystemEvent), nextCursor: z.string().nullable() })
  .openapi('SessionSystemEventPage');

export const EndSessionBody = z
  .object({ status: EndStatus, reason: z.string().trim().max(500).optional() })
  .strict();
