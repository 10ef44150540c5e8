import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server (the `smtp-server` package) that insists on AUTH with the right user and
 * password, refuses recipients at @blocked.test with 550, and keeps every message it accepts.
 */
export const SMTP_USER = 'mailer';
export const SMTP_PASS = 'smtp-pass-123';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
  user: string | undefined;
}

export async function startFakeSmtp() {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASS)
        return callback(null, { user: SMTP_USER });
      callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@blocked.test')) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          from: from ? from.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
