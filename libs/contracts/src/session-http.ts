import { defineRoute } from './http.ts';
import {
  EndSessionBody,
  SessionDetail,
  SessionDetailQuery,
  SessionEventsPage,
  SessionEventsQuery,
  SessionExportQuery,
  SessionIdParams,
  SessionListQuery,
  SessionMessagesPage,
  SessionMessagesQuery,
  SessionMetrics,
  SessionPage,
  SessionSummary,
} from './session-model.ts';

// --- Routes ----------------------------------------------------------------------------------------------

const common = { service: 'session', tag: 'Sessions', access: 'authenticated' } as const;

export const sessionRoutes = {
  list: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions',
    summary: 'Paginated list of sessions, newest first, with filters that combine',
    query: SessionListQuery,
    success: { status: 200, schema: SessionPage },
    errors: [400],
  }),
  metrics: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/metrics',
    summary: 'Session metrics of the organization (counters, exact and constant-time)',
    success: { status: 200, schema: SessionMetrics },
  }),
  export: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/export',
    summary: 'Export the filtered sessions as CSV (visible columns) or NDJSON (full history), streamed',
    query: SessionExportQuery,
    success: {
      status: 200,
      contentType: 'text/csv',
      description:
        'format=csv: text/csv, header id,agent,channel,type,status,start,end,duration. format=json: application/x-ndjson, one full session (with messages and system events) per line.',
    },
    errors: [400],
  }),
  get: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/{id}',
    summary: 'One session with metadata, the first page of messages and system events',
    params: SessionIdParams,
    query: SessionDetailQuery,
    success: { status: 200, schema: SessionDetail },
    errors: [400, 404],
  }),
  messages: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/{id}/messages',
    summary: 'A page of the transcript of a session, by position',
    params: SessionIdParams,
    query: SessionMessagesQuery,
    success: { status: 200, schema: SessionMessagesPage },
    errors: [400, 404],
  }),
  events: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/sessions/{id}/events',
    summary: 'A page of the system events of a session, oldest first',
    params: SessionIdParams,
    query: SessionEventsQuery,
    success: { status: 200, schema: SessionEventsPage },
    errors: [400, 404],
  }),
  end: defineRoute({
    ...common,
    method: 'post',
    path: '/api/v1/sessions/{id}/end',
    summary: 'End an Active session as Completed, Failed or Cancelled (any other transition is a 409)',
    params: SessionIdParams,
    body: EndSessionBody,
    success: { status: 200, schema: SessionSummary },
    errors: [403, 404, 409],
  }),
};

/**
 * The same three reads at the paths the specification lists (`/sessions`, `/sessions/metrics`,
 * `/sessions/{id}`); the gateway rewrites them to /api/v1 and the service answers both.
 */
export const sessionSpecRoutes = {
  list: defineRoute({ ...sessionRoutes.list, path: '/sessions', summary: 'Same as GET /api/v1/sessions' }),
  metrics: defineRoute({
    ...sessionRoutes.metrics,
    path: '/sessions/metrics',
    summary: 'Same as GET /api/v1/sessions/metrics',
  }),
  get: defineRoute({
    ...sessionRoutes.get,
    path: '/sessions/{id}',
    summary: 'Same as GET /api/v1/sessions/{id}',
  }),
};
