import type { Response } from 'express';

/**
 * A server-sent event stream (text/event-stream): `event: <name>` and one `data:` line of JSON per
 * event, a comment line every `heartbeatMs` so that proxies keep an idle stream open. Opened lazily by
 * the first event, so that errors before it are still answered as ordinary problem+json.
 */
export class EventStream {
  private opened = false;
  private timer: NodeJS.Timeout | undefined;
  closedByClient = false;

  constructor(
    private readonly res: Response,
    private readonly heartbeatMs: number,
  ) {
    res.on('close', () => {
      if (!res.writableFinished) this.closedByClient = true;
      clearInterval(this.timer);
    });
  }

  get isOpen() {
    return this.opened;
  }

  private open() {
    if (this.opened) return;
    this.opened = true;
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
    this.timer = setInterval(() => this.res.write(': keep-alive\n\n'), this.heartbeatMs);
    this.timer.unref();
  }

  send(event: string, data: unknown) {
    this.open();
    if (this.closedByClient) return;
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end() {
    clearInterval(this.timer);
    if (!this.res.writableEnded) this.res.end();
  }
}
