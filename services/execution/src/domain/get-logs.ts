import type { z } from 'zod';
import type { ExecutionLogLine, ExecutionLogsQuery } from '@platform/contracts';
import type { Page } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { findExecution } from './find-execution.ts';
import { toLogLine } from './views.ts';

/**
 * The execution's log in order, a page at a time. Lines live in the execution document (written in
 * the same update as the state they describe), capped per execution; `total` counts stored lines.
 */
export async function getLogs(
  deps: ExecutionDeps,
  orgId: string,
  id: string,
  query: z.infer<typeof ExecutionLogsQuery>,
): Promise<Page<ExecutionLogLine>> {
  const doc = await findExecution(deps, orgId, id, { logs: true });
  const lines = [...(doc.logs ?? [])].sort((a, b) => a.seq - b.seq);
  const start = (query.page - 1) * query.pageSize;
  const items = lines.slice(start, start + query.pageSize).map(toLogLine);
  if (doc.logsDropped > 0 && start + query.pageSize >= lines.length) {
    items.push({
      seq: doc.logSeq + 1,
      timestamp: new Date(doc.finishedAt ?? Date.now()).toISOString(),
      level: 'warn',
      message: `${doc.logsDropped} later log lines were not kept (limit ${deps.config.EXECUTION_LOG_LIMIT})`,
    });
  }
  return {
    items,
    total: lines.length,
    page: query.page,
    pageSize: query.pageSize,
    totalPages: Math.ceil(lines.length / query.pageSize),
    nextCursor: null,
  };
}
