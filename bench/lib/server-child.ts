// A real Tickbook server (startServer, from the TypeScript sources) in its own process, so the
// load generator and the server do not share one event loop. Prints `READY <url>` once listening.
// With BARE=1 it serves instead a bare Fastify route that parses the same JSON body and answers
// a fixed 201 body: bench/orders-http.ts's baseline (its real targets run the built server,
// bench/lib/orders-child.mjs).
import Fastify from 'fastify';
import { startServer } from '../../src/main.ts';

if (process.env.BARE === '1') {
  const app = Fastify({ logger: false });
  const body = Buffer.from(
    JSON.stringify({ id: '01a1ff33-d9ba-7006-8d62-b11dfa96253e', status: 'RESTING', fills: [] }),
  );
  app.post('/nbx/v2/emm/orders/place', async (_req, reply) =>
    reply.code(201).type('application/json').send(body),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  process.stdout.write(`READY http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}\n`);
} else {
  const srv = await startServer({ env: process.env, signals: true });
  process.stdout.write(`READY ${srv.url}\n`);
}
