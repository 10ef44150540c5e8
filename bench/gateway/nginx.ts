// Debian's nginx as a reverse proxy in front of the same service, configured as one would for this
// job: one worker, keep-alive to the upstream, HTTP/1.1, access log on (nginx's default).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnManaged, waitForPort, type ManagedProcess } from '@platform/testing';

export async function startNginx(
  upstreamPort: number,
): Promise<{ url: string; process: ManagedProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ap-bench-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `user root;
worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  upstream service { server 127.0.0.1:${upstreamPort}; keepalive 128; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 100000;
    location / {
      proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`,
  );
  const proc = spawnManaged('nginx', '/usr/sbin/nginx', ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    logFile: join(dir, 'stdout.log'),
    cleanupDir: dir,
  });
  await waitForPort(port, 10_000);
  return { url: `http://127.0.0.1:${port}`, process: proc, dir };
}
