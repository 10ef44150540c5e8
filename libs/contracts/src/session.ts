/**
 * Sessions: conversations between a user and a deployed agent (docs/sessions.md has the wire formats,
 * the ingest subjects and the indexes). Sessions are written over JetStream by the agent service and by
 * channel adapters (`sessions.ingest.<source>.<kind>`), read over HTTP and by `svc.session.*` RPCs.
 */
export * from './session-model.ts';
export * from './session-http.ts';
export * from './session-messaging.ts';
