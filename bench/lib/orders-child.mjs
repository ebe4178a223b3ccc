// Server side of bench/orders-http.ts for the real targets: what `npm start` runs, the built server
// (the dist/main.js that MAIN_JS names; the parent brings it up to date first with
// scripts/ensure-build.mjs), run by plain node rather than the TypeScript sources through tsx's
// loader, whose transform (a name-setting wrapper around function expressions) is not what ships.
// MAIN_JS may name another checkout's build (--ab). Prints `READY <url>` once listening.
import { pathToFileURL } from 'node:url';

// bench/orders-ws.ts --diag: loop delay, GC, fdatasync and per-thread CPU (server-diag.mjs).
if (process.env.BENCH_DIAG === '1') await import('./server-diag.mjs');
const { startServer } = await import(pathToFileURL(process.env.MAIN_JS).href);
const srv = await startServer({ env: process.env, signals: true });
process.stdout.write(`READY ${srv.url}\n`);
