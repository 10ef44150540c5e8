import { randomUUID } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { z } from 'zod';
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeadersOf } from '@nats-io/transport-node';
import { natsHeaders, type EventDef } from '@platform/contracts';
import type { Logger } from './logger.ts';
import { modelOn } from './mongo.ts';

/**
 * Domain events, published at least once: the event is first written to the service's own `outbox`
 * collection, then published to JetStream with its id as Nats-Msg-Id (duplicates within the
 * stream's window are dropped; consumers handle the rest idempotently by event id). A relay
 * republishes whatever stayed unpublished (NATS down, process crashed) until it goes through.
 */
interface OutboxDoc {
  _id: string;
  subject: string;
  payload: string;
  requestId?: string;
  status: 'pending' | 'published';
  createdAt: Date;
  attempts: number;
}

const schema = new Schema<OutboxDoc>(
  {
    _id: String,
    subject: { type: String, required: true },
    payload: { type: String, required: true },
    requestId: String,
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    attempts: { type: Number, default: 0 },
  },
  { versionKey: false },
);
// The relay's query: pending events, oldest first. Also serves the purge of published ones.
schema.index({ status: 1, createdAt: 1 });

type EventData<D extends EventDef> = z.input<D['payload']> extends { data: infer T } ? T : never;

export class Outbox {
  private timer: NodeJS.Timeout | undefined;
  private relaying = false;

  constructor(
    private readonly db: Connection,
    private readonly js: JetStreamClient,
    private readonly logger: Logger,
  ) {}

  private get model() {
    return modelOn<OutboxDoc>(this.db, 'OutboxEvent', schema, 'outbox');
  }

  /**
   * Records and publishes one event; returns its envelope. When publishing fails the event stays in
   * the outbox and the relay sends it later, so callers never fail because NATS is briefly away.
   */
  async publish<D extends EventDef>(
    def: D,
    orgId: string,
    data: EventData<D>,
    options: { id?: string; requestId?: string; createdAt?: Date } = {},
  ): Promise<z.infer<D['payload']>> {
    const envelope = def.payload.parse({
      id: options.id ?? randomUUID(),
      type: def.subject.slice('evt.'.length),
      createdAt: (options.createdAt ?? new Date()).toISOString(),
      orgId,
      data,
    }) as z.infer<D['payload']> & { id: string };
    const doc = {
      _id: envelope.id,
      subject: def.subject,
      payload: JSON.stringify(envelope),
      requestId: options.requestId,
      status: 'pending' as const,
      createdAt: new Date(),
      attempts: 0,
    };
    try {
      await this.model.create(doc);
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err; // same event id recorded already
    }
    await this.send(doc).catch((err) =>
      this.logger.warn({ err: (err as Error).message, subject: def.subject }, 'event left for the relay'),
    );
    return envelope;
  }

  private async send(doc: Pick<OutboxDoc, '_id' | 'subject' | 'payload' | 'requestId'>) {
    const h = natsHeadersOf();
    if (doc.requestId) h.set(natsHeaders.requestId, doc.requestId);
    await this.js.publish(doc.subject, doc.payload, { msgID: doc._id, headers: h, timeout: 5_000 });
    await this.model.updateOne({ _id: doc._id }, { status: 'published' });
  }

  /** Publishes events left pending for longer than `olderThanMs`; returns how many went out. */
  async relay(olderThanMs = 2_000): Promise<number> {
    if (this.relaying) return 0;
    this.relaying = true;
    let sent = 0;
    try {
      const pending = await this.model
        .find({ status: 'pending', createdAt: { $lt: new Date(Date.now() - olderThanMs) } })
        .sort({ createdAt: 1 })
        .limit(500)
        .lean();
      for (const doc of pending) {
        try {
          await this.send(doc);
          sent++;
        } catch (err) {
          await this.model.updateOne({ _id: doc._id }, { $inc: { attempts: 1 } }).catch(() => undefined);
          this.logger.warn({ err: (err as Error).message }, 'outbox relay could not publish; will retry');
          break;
        }
      }
      // Published events are kept a day for inspection, then removed.
      await this.model.deleteMany({
        status: 'published',
        createdAt: { $lt: new Date(Date.now() - 86_400_000) },
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'outbox relay failed; will retry');
    } finally {
      this.relaying = false;
    }
    return sent;
  }

  start(intervalMs = 2_000) {
    this.timer ??= setInterval(() => void this.relay(), intervalMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
