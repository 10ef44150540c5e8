import { runService } from '@platform/kit';
import { authService } from './service.ts';

await runService(authService);
