import { runService } from '@platform/kit';
import { workflowService } from './service.ts';

await runService(workflowService);
