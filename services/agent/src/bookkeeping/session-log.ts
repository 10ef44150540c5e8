import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeadersOf } from '@nats-io/transport-node';
import type { Connection } from 'mongoose';
import { natsHeaders } from '@platform/contracts';
import type { Logger } from '@platform/kit';
import { tryLock } from '../domain/locks.ts';
import {
  conversationModel,
  findConversation,
  NOTHING_PENDING,
  updateConversation,
  type ConversationDoc,
  type PendingCommand,
} from '../models/conversation.ts';
import { subjectOf } from './commands.ts';

/**
 * Publishes a session's queued commands, in order, to the session service's ingest stream. A command
 * leaves the queue only after JetStream stored it; a failed publish stops there (later commands must
 * not overtake it). The queue is written only by the holder of the session's lock, which knows it
 * whole: after publishing it writes what is left (`settle`). A relay publishes what stayed queued
 * (NATS was away, a process died), taking the lock like any other writer.
 */
export class SessionLog {
  private timer: NodeJS.Timeout | undefined;
  private relaying = false;

  constructor(
    private readonly db: Connection,
    private readonly js: JetStreamClient,
    private readonly logger: Logger,
    private readonly options: { publishTimeoutMs: number; lockTtlMs: number },
  ) {}

  /** Publishes the queue in order; answers what could not be published (empty when all went out). */
  async publish(queue: PendingCommand[], requestId?: string): Promise<PendingCommand[]> {
    for (const [i, command] of queue.entries()) {
      try {
        const h = natsHeadersOf();
        if (requestId) h.set(natsHeaders.requestId, requestId);
        await this.js.publish(subjectOf[command.kind], command.payload, {
          msgID: command.id,
          headers: h,
          timeout: this.options.publishTimeoutMs,
        });
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message, command: command.id },
          'session command left for the relay',
        );
        return queue.slice(i);
      }
    }
    return [];
  }

  /**
   * The usual write of a lock holder: the record's `set` with the whole `queue` (what was still
   * unpublished, then the new commands), then the queue published and what is left settled.
   */
  async commit(
    conv: Pick<ConversationDoc, '_id' | 'orgId'>,
    set: Record<string, unknown>,
    queue: PendingCommand[],
    requestId?: string,
  ): Promise<void> {
    await updateConversation(this.db, conv, {
      $set: { ...set, pending: queue, pendingSince: queue[0]?.at ?? NOTHING_PENDING },
    });
    const remaining = await this.publish(queue, requestId);
    await this.settle(conv.orgId, conv._id, remaining);
  }

  /** Writes the queue left after publishing (the caller holds the session's lock). */
  async settle(orgId: string, sessionId: string, remaining: PendingCommand[]): Promise<void> {
    await updateConversation(
      this.db,
      { _id: sessionId, orgId },
      { $set: { pending: remaining, pendingSince: remaining[0]?.at ?? NOTHING_PENDING } },
    );
  }

  /** Publishes what stayed queued for longer than `olderThanMs`; answers how many sessions it emptied. */
  async relay(olderThanMs = 2_000): Promise<number> {
    if (this.relaying) return 0;
    this.relaying = true;
    let emptied = 0;
    try {
      const cutoff = new Date(Date.now() - olderThanMs);
      const due = await conversationModel(this.db)
        .find({ pendingSince: { $lt: cutoff } }, { orgId: 1 })
        .sort({ pendingSince: 1 })
        .limit(200)
        .lean();
      for (const { _id: sessionId, orgId } of due) {
        // Still waiting? (A turn may have published it since.) Then take the lock, as every writer does.
        const current = await findConversation(this.db, orgId, sessionId, { pendingSince: 1 });
        if (!current || current.pendingSince >= cutoff) continue;
        const lock = await tryLock(this.db, `session:${sessionId}`, this.options.lockTtlMs, this.logger, {
          onlyIfFree: true,
        });
        if (!lock) continue; // a turn holds it and publishes the queue itself
        try {
          const doc = await findConversation(this.db, orgId, sessionId, { pending: 1, pendingSince: 1 });
          if (!doc || doc.pendingSince >= cutoff) continue; // published meanwhile
          const remaining = await this.publish(doc.pending);
          await this.settle(orgId, sessionId, remaining);
          if (remaining.length > 0) break; // NATS is still away
          emptied++;
        } finally {
          await lock.release();
        }
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'session command relay failed; will retry');
    } finally {
      this.relaying = false;
    }
    return emptied;
  }

  start(intervalMs: number, ageMs: number) {
    this.timer ??= setInterval(() => void this.relay(ageMs), intervalMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
