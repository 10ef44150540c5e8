import { runService } from '@platform/kit';
import { executionService } from './service.ts';

await runService(executionService);
