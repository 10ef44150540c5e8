import { request } from 'node:http';

/** GET with node:http (no client-side timeout: a slow server is measured, not cut off). */
export function get(
  url: string,
  headers: Record<string, string>,
  onData?: (chunk: Buffer) => void,
): Promise<{ status: number; body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (onData) onData(chunk);
        else chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), bytes }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
