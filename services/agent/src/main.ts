import { runService } from '@platform/kit';
import { agentService } from './service.ts';

await runService(agentService);
