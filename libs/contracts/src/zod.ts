// Every contract imports `z` from here so that `.openapi()` metadata is available everywhere.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
