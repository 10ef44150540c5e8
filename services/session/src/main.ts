import { runService } from '@platform/kit';
import { sessionService } from './service.ts';

await runService(sessionService);
