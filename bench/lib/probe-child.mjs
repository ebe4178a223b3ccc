// A request probe in its own process (bench/parlay-settle.ts): while the parent's server works, it
// keeps small requests going — `readLanes` lanes that each GET one book, and one lane that places
// a resting order — each lane sending its next request `everyMs` after the previous one was due
// or, when the answer came later, at once. A request's wait is measured from when it was due to
// its answer, so a stall of the server shows as the wait of the requests due during it; the lanes
// bound what is outstanding, so a loaded server is not also buried under a growing backlog.
// The probe shares the machine's cores with the server: its own timers can fire late (its process
// not scheduled, its GC), and that lateness is the probe's, not the server's. So each request also
// records how late it was sent, and the window reports the probe's own event-loop delay; the
// server's answer time is sent → answered.
// Driven over IPC: {type: 'config', …}, {type: 'start'}, {type: 'stop'} → result, {type: 'exit'}.
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let cfg;
let run;

function request(method, path, body) {
  return new Promise((resolve) => {
    const req = http.request(
      `${cfg.url}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${cfg.token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', () => resolve(0));
    if (body) req.end(JSON.stringify(body));
    else req.end();
  });
}

/** One lane: a request due every `everyMs` (from `offset`), the next sent once the last answered. */
async function lane(everyMs, offset, fire, waits, dueAt, late) {
  let due = performance.now() + offset;
  while (run.on) {
    const now = performance.now();
    if (due > now) await new Promise((r) => setTimeout(r, due - now));
    if (!run.on) break;
    late.push(performance.now() - due);
    const status = await fire();
    if (status < 200 || status >= 300) run.errors++;
    waits.push(performance.now() - due);
    dueAt.push(due - run.t0);
    due = Math.max(due + everyMs, performance.now());
  }
}

let k = 0;
process.on('message', async (m) => {
  if (m.type === 'config') {
    cfg = m;
    process.send({ type: 'ok' });
  } else if (m.type === 'start') {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    run = {
      on: true,
      errors: 0,
      read: [],
      order: [],
      readAt: [],
      orderAt: [],
      readLate: [],
      orderLate: [],
      delay,
      t0: performance.now(),
    };
    const lanes = [];
    for (let i = 0; i < cfg.readLanes; i++)
      lanes.push(
        lane(
          cfg.readEveryMs,
          (i * cfg.readEveryMs) / cfg.readLanes,
          () => request('GET', `/nbx/v2/emm/book/${cfg.marketId}?currency=CASH`),
          run.read,
          run.readAt,
          run.readLate,
        ),
      );
    lanes.push(
      lane(
        cfg.orderEveryMs,
        0,
        () =>
          request('POST', '/nbx/v2/emm/orders/place', {
            outcomeId: cfg.outcomeIds[k++ % 2],
            price: 0.1,
            qty: 100,
            currency: 'CASH',
            tif: 'GTC',
          }),
        run.order,
        run.orderAt,
        run.orderLate,
      ),
    );
    run.done = Promise.all(lanes);
    process.send({ type: 'ok' });
  } else if (m.type === 'stop') {
    run.on = false;
    await run.done;
    run.delay.disable();
    const { read, order, readAt, orderAt, readLate, orderLate, errors } = run;
    // the probe's own worst event-loop delay in the window, ms
    const probeDelayMs = run.delay.max / 1e6;
    process.send({ type: 'result', read, order, readAt, orderAt, readLate, orderLate, errors, probeDelayMs });
  } else if (m.type === 'exit') {
    agent.destroy();
    process.exit(0);
  }
});
