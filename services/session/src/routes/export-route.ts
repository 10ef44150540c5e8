import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Express } from 'express';
import { sessionRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { exportFileName, openExport } from '../domain/export-sessions.ts';

/**
 * GET /sessions/export: streamed from a database cursor with backpressure (pipeline waits for the
 * client to read). Errors before the first byte are problem answers; after it, the connection is cut
 * (the client sees an incomplete download and resumes with `after` = the last id it received).
 */
export function mountExportRoute(app: Express, deps: SessionDeps) {
  mountRoute(
    app,
    sessionRoutes.export,
    deps.config.INTERNAL_TOKEN_SECRET,
    async ({ identity, query, res, log }) => {
      const chunks = await openExport(deps, identity.orgId, query);
      const csv = query.format === 'csv';
      res.status(200);
      res.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
      res.setHeader(
        'Content-Disposition',
        `attachment; filename="${exportFileName(query.format, deps.now())}"`,
      );
      res.setHeader('Cache-Control', 'no-store');
      try {
        await pipeline(Readable.from(chunks), res);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'export interrupted');
        res.destroy();
      }
    },
  );
}
