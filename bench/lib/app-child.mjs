// Server side of the HTTP benchmarks (bench/read-path.ts, bench/parlay.ts), in its own process so
// the load generator does not share its event loop. Plain JavaScript run by plain node, because
// ROLE=app runs what `npm start` runs: the built server (dist/main.js, which the parent brings up to
// date first with scripts/ensure-build.mjs), not the TypeScript sources through tsx's loader, whose
// transform (a name-setting wrapper around every function expression, source maps) is not what
// ships. ROLE=app: startServer (real store, demo slate, real bearer guard, logging at LOG_LEVEL)
// writing its log lines to this process's stdout, which the parent points at /dev/null.
// ROLE=bare: a bare Fastify, logger off, that serves whatever bytes the parent sends it over IPC,
// each at GET /bare/<key> (200) and POST /bare/<key> (201, after parsing the JSON body as any POST
// route does). Both report their port over IPC and answer 'cpu' with the process CPU time in µs.
import Fastify from 'fastify';

let url;
if (process.env.ROLE === 'bare') {
  const bare = Fastify({ logger: false });
  const bodies = new Map();
  bare.get('/bare/:key', (request, reply) => {
    const body = bodies.get(request.params.key);
    if (!body) return reply.code(404).send();
    reply.header('content-type', 'application/json; charset=utf-8').send(body);
  });
  bare.post('/bare/:key', (request, reply) => {
    const body = bodies.get(request.params.key);
    if (!body) return reply.code(404).send();
    reply.code(201).header('content-type', 'application/json; charset=utf-8').send(body);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const a = bare.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  process.on('message', (m) => {
    if (m.kind === 'bytes') {
      bodies.set(m.key, Buffer.from(m.body, 'base64'));
      process.send?.({ kind: 'stored', key: m.key });
    }
  });
} else {
  const { startServer } = await import('../../dist/main.js');
  const srv = await startServer({ env: process.env, signals: true });
  url = srv.url;
}
process.on('message', (m) => {
  if (m.kind === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ kind: 'cpu', cpu: u.user + u.system, user: u.user });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ kind: 'ready', url });
