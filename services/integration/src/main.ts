import { runService } from '@platform/kit';
import { integrationService } from './service.ts';

await runService(integrationService);
