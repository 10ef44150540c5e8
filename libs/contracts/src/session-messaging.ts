import { z } from './zod.ts';
import { defineRpc } from './subjects.ts';
import { defineDomainEvent } from './events.ts';
import { Id } from './common.ts';
import {
  EndStatus,
  SessionChannel,
  SessionId,
  SessionMessage,
  SessionMetadata,
  SessionMetrics,
  SessionStatus,
  SessionSummary,
  SessionType,
} from './session-model.ts';

const Timestamp = z.iso.datetime({ offset: true });

// --- Ingest (JetStream) ----------------------------------------------------------------------------------

/** Every command carries an idempotency id, also sent as `Nats-Msg-Id`. */
const CommandId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1–128 of A-Z a-z 0-9 . _ : -')
  .openapi({ description: 'Idempotency id of the command; also its Nats-Msg-Id' });

const commandBase = { id: CommandId, orgId: Id, sessionId: SessionId };

export const SessionStartCommand = z
  .object({
    ...commandBase,
    agentId: Id,
    agentName: z.string().min(1).max(200),
    agentVersion: z.string().min(1).max(64),
    channel: SessionChannel,
    sessionType: SessionType,
    startTime: Timestamp.optional().openapi({
      description: 'Defaults to the time of ingest; never later than it',
    }),
    metadata: SessionMetadata.default({}),
  })
  .strict();
export type SessionStartCommand = z.input<typeof SessionStartCommand>;

export const SessionMessageCommand = z
  .object({
    ...commandBase,
    position: z.number().int().min(1).max(1_000_000_000).openapi({
      description:
        "The sender's sequence number in the session, from 1, without gaps; one publisher numbers a session",
    }),
    sender: z.enum(['user', 'agent']),
    content: z.string().max(32_000),
    timestamp: Timestamp,
  })
  .strict();
export type SessionMessageCommand = z.input<typeof SessionMessageCommand>;

export const SessionEventCommand = z
  .object({
    ...commandBase,
    type: z.enum(['connection_established', 'disconnection', 'error', 'agent_handoff']),
    timestamp: Timestamp,
    details: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
        z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]),
      )
      .refine((d) => Object.keys(d).length <= 20, 'must have at most 20 keys')
      .default({}),
  })
  .strict();
export type SessionEventCommand = z.input<typeof SessionEventCommand>;

export const SessionEndCommand = z
  .object({
    ...commandBase,
    status: EndStatus,
    endTime: Timestamp.optional().openapi({ description: 'Defaults to the time of ingest' }),
    reason: z.string().max(500).optional(),
  })
  .strict();
export type SessionEndCommand = z.input<typeof SessionEndCommand>;

export const ingestKinds = ['start', 'message', 'event', 'end'] as const;
export type IngestKind = (typeof ingestKinds)[number];
/** Who publishes: the agent service, or a channel adapter (NATS permissions can separate the two). */
export const ingestSources = ['agent', 'adapter'] as const;
export type IngestSource = (typeof ingestSources)[number];

export const ingestCommandSchemas = {
  start: SessionStartCommand,
  message: SessionMessageCommand,
  event: SessionEventCommand,
  end: SessionEndCommand,
} as const;

/** A command subject and its payload; publish with `publishCommand` (kit) so the msg id is set. */
export interface IngestCommandDef<P extends z.ZodType = z.ZodType> {
  subject: string;
  payload: P;
}

/** `sessions.ingest.<source>.<kind>`, e.g. `sessions.ingest.agent.message`. */
export function sessionIngestSubject<K extends IngestKind>(
  source: IngestSource,
  kind: K,
): IngestCommandDef<(typeof ingestCommandSchemas)[K]> {
  return { subject: `sessions.ingest.${source}.${kind}`, payload: ingestCommandSchemas[kind] };
}

export const sessionIngest = {
  agent: {
    start: sessionIngestSubject('agent', 'start'),
    message: sessionIngestSubject('agent', 'message'),
    event: sessionIngestSubject('agent', 'event'),
    end: sessionIngestSubject('agent', 'end'),
  },
  adapter: {
    start: sessionIngestSubject('adapter', 'start'),
    message: sessionIngestSubject('adapter', 'message'),
    event: sessionIngestSubject('adapter', 'event'),
    end: sessionIngestSubject('adapter', 'end'),
  },
};

/** The work-queue stream of ingest commands (created by the session service; publishers may ensure it too). */
export const sessionIngestStream = {
  name: 'SESSIONS_INGEST',
  subjects: ['sessions.ingest.>'],
  retention: 'workqueue',
  duplicateWindowMs: 10 * 60_000,
} as const;

// --- RPC and domain events -------------------------------------------------------------------------------

export const SessionState = SessionSummary.extend({
  lastPosition: z.number().int().openapi({ description: 'Highest message position stored (next is +1)' }),
});

export const sessionRpc = {
  /** The agent service reads a session's status and where its transcript stands. */
  get: defineRpc('svc.session.get', z.object({ orgId: Id, sessionId: SessionId }), SessionState),
  metrics: defineRpc('svc.session.metrics', z.object({ orgId: Id }), SessionMetrics),
  /** Operator's repair: rebuilds the organization's counters from its sessions (one scan). */
  recount: defineRpc('svc.session.recount', z.object({ orgId: Id }), SessionMetrics),
};

export const SessionEventData = z.object({
  sessionId: z.string(),
  agentId: Id,
  agentName: z.string(),
  agentVersion: z.string(),
  channel: SessionChannel,
  sessionType: SessionType,
  status: SessionStatus,
  startTime: Timestamp,
  endTime: Timestamp.optional(),
  duration: z.number().nullable(),
  reason: z.string().optional(),
});

export const SessionMessageEventData = z.object({
  sessionId: z.string(),
  agentId: Id,
  message: SessionMessage,
});

export const sessionEvents = {
  started: defineDomainEvent('session.started', SessionEventData),
  completed: defineDomainEvent('session.completed', SessionEventData),
  failed: defineDomainEvent('session.failed', SessionEventData),
  cancelled: defineDomainEvent('session.cancelled', SessionEventData),
  message: defineDomainEvent('session.message', SessionMessageEventData),
};
