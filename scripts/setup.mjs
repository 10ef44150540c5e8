// `node scripts/setup.mjs`: installs what the project needs on a fresh machine (pnpm, dependencies,
// nats-server and FerretDB builds) without starting anything. CI runs it first.
import { bootstrap, step } from './lib/bootstrap.mjs';

const bins = bootstrap();
step(`ready: nats-server at ${bins.natsServer}, FerretDB at ${bins.ferretdb}`);
