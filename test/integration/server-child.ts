// Child process for the kill -9 test: the real server (startServer) on the environment it is
// given, announcing its address on stdout once it listens.
import { startServer } from '../../src/main.ts';

const srv = await startServer({ env: process.env });
process.stdout.write(`READY ${srv.url}\n`);
