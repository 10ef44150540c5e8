import type { Express } from 'express';
import { buildOpenApiDocument } from '@platform/contracts';

type Doc = ReturnType<typeof buildOpenApiDocument>;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A readable page of the document, rendered here: no CDN, so it works offline and under a strict CSP. */
function renderDocsPage(doc: Doc): string {
  const sections: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(
      item as Record<
        string,
        { summary?: string; tags?: string[]; security?: unknown[]; responses?: Record<string, unknown> }
      >,
    )) {
      const auth = op.security && op.security.length > 0 ? 'Bearer token' : 'public';
      const statuses = Object.keys(op.responses ?? {}).join(', ');
      sections.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? '')}</td><td>${escapeHtml(op.tags?.join(', ') ?? '')}</td><td>${auth}</td><td>${statuses}</td></tr>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}code{font-size:13px}</style></head>
<body><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${escapeHtml(doc.info.description ?? '')} The machine-readable document: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.0).</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Group</th><th>Auth</th><th>Responses</th></tr></thead><tbody>${sections.join('')}</tbody></table></body></html>`;
}

export function mountDocs(app: Express) {
  const doc = buildOpenApiDocument();
  const page = renderDocsPage(doc);
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(doc);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(page);
  });
}
