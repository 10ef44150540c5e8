import { createHash } from 'node:crypto';
import { TooManyRequestsError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { loginAttemptModel } from '../models/login-attempt.ts';

/**
 * Failed logins are counted per email and per client address in fixed windows shared by every auth
 * replica (MongoDB). Past the limit, attempts get 429 until the window ends, whether the password
 * is right or not, so guessing stays slow; a successful login clears the email's counter.
 */
const keysOf = (email: string, ip: string | undefined) => [
  { id: `email:${createHash('sha256').update(email).digest('hex')}`, kind: 'email' as const },
  ...(ip ? [{ id: `ip:${ip}`, kind: 'ip' as const }] : []),
];

function limitOf(deps: AuthDeps, kind: 'email' | 'ip') {
  return kind === 'email' ? deps.config.LOGIN_MAX_FAILURES_PER_EMAIL : deps.config.LOGIN_MAX_FAILURES_PER_IP;
}

/** Throws 429 when the email or the address has used up its failures for the current window. */
export async function assertLoginAllowed(deps: AuthDeps, email: string, ip: string | undefined) {
  const keys = keysOf(email, ip);
  const docs = await loginAttemptModel(deps.db)
    .find({ _id: { $in: keys.map((k) => k.id) } })
    .lean();
  const now = Date.now();
  for (const doc of docs) {
    const kind = doc._id.startsWith('email:') ? 'email' : 'ip';
    if (doc.windowEndsAt.getTime() > now && doc.failures >= limitOf(deps, kind)) {
      const retryAfter = Math.max(1, Math.ceil((doc.windowEndsAt.getTime() - now) / 1000));
      throw new TooManyRequestsError(
        'Too many failed logins; wait before trying again',
        retryAfter,
        'too-many-login-attempts',
      );
    }
  }
}

/** Counts one failure for the email and the address (a new window starts when the last one ended). */
export async function recordLoginFailure(deps: AuthDeps, email: string, ip: string | undefined) {
  const model = loginAttemptModel(deps.db);
  const now = new Date();
  const windowEndsAt = new Date(now.getTime() + deps.config.LOGIN_FAILURE_WINDOW_SECONDS * 1000);
  await Promise.all(
    keysOf(email, ip).map(async ({ id }) => {
      const bumped = await model.updateOne(
        { _id: id, windowEndsAt: { $gt: now } },
        { $inc: { failures: 1 } },
      );
      if (bumped.matchedCount > 0) return;
      // No live window: restart an ended one, or create it (a concurrent creator wins; count into it).
      const restarted = await model.updateOne(
        { _id: id, windowEndsAt: { $lte: now } },
        { $set: { failures: 1, windowEndsAt } },
      );
      if (restarted.matchedCount > 0) return;
      try {
        await model.create({ _id: id, failures: 1, windowEndsAt });
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        await model.updateOne({ _id: id }, { $inc: { failures: 1 } });
      }
    }),
  );
}

export async function clearLoginFailures(deps: AuthDeps, email: string) {
  await loginAttemptModel(deps.db).deleteOne({ _id: keysOf(email, undefined)[0]!.id });
}
