import { runService } from '@platform/kit';
import { gatewayService } from './service.ts';

await runService(gatewayService);
