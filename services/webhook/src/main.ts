import { runService } from '@platform/kit';
import { webhookService } from './service.ts';

await runService(webhookService);
