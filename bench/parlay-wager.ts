// Wager round trip with the house quote (docs/bench-parlay-trading.md "Wager round trip"): the built
// server (dist/main.js, as `npm start`) on the embedded store in a child process, the house maker
// configured (PARLAY_HOUSE_ACCOUNT), 32 connections. Each wager is a round trip: request a parlay
// (POST /nbx/v1/parlay/request), wait for the house's quote (in the 201 when it is already there,
// else its `parlayQuote` frame on the taker's private stream), then POST .../wager at that price.
// Timed: the whole round trip (the headline), and the wager call alone. Baseline in the same run and
// on the same server: single-order placement (POST /nbx/v2/emm/orders/place) by the same 32
// connections and the same client code. Rounds interleave the two (wager first in odd rounds, orders
// first in even ones). The wager call alone is also set against placement: its p99 beside the
// order's, and its rate by Little's law (connections ÷ its mean latency, the rate 32 connections
// doing nothing but that call at that latency would reach) over the orders' measured rate.
// The bet in one call (docs/parlays.md "Bet in one call": the request with a `wager` member at the
// house's price, read once per server) is a third load in the same rounds, on servers that have it
// (a base without it shows "—"); the three loads rotate their order from round to round.
//
//   node --import tsx bench/parlay-wager.ts [--seconds 8] [--runs 3] [--connections 32]
//     [--ab CHECKOUT] [--cpu-prof DIR] [--node-options FLAGS[,FLAGS…]] [--diag]
//
// --ab CHECKOUT: the same rounds also on another checkout's built server (its dist/, e.g. a clone of
// the base commit), interleaved, so a change is compared with its base in the same run.
// --cpu-prof DIR: V8 profiles of each server (written when it exits).
// --node-options: this checkout's server once per value (comma-separated; an empty value: none, as
// `npm start`), with NODE_OPTIONS set to it, interleaved, so V8 flags (another young generation,
// say) are compared in the same rounds.
// --diag: a second table from inside each server during each load (bench/lib/server-diag.mjs,
// this checkout's, loaded into every target's server with NODE_OPTIONS=--import): the event loop's
// delay, GC pauses, the journal's fdatasync calls and CPU by thread — where a tail comes from.

import { rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import { WebSocket } from 'ws';
import { createGame, fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { BENCH_ADMIN, benchAppEnv, type Server, spawnServer, THIS_CHECKOUT } from './lib/app-children.ts';
import { arg, numArg } from './lib/args.ts';

const SECONDS = numArg('seconds', 8);
const RUNS = numArg('runs', 3);
const CONNECTIONS = numArg('connections', 32);
const AB = arg('ab');
const PROF = arg('cpu-prof');
const NODE_OPTIONS = arg('node-options')?.split(',');
const DIAG = process.argv.includes('--diag');
const DIAG_MODULE = new URL('./lib/server-diag.mjs', import.meta.url).href;
/** How long a taker waits for the house's quote before it counts the round trip as failed. */
const QUOTE_WAIT_MS = 2_000;

const now = () => performance.now();
/** Wager clientOrderIds, unique over the whole run (each taker's ids must never repeat). */
let serial = 0;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const median = (xs: number[]) => pct(xs, 50);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function ok(url: string, method: string, path: string, token: string, body?: unknown) {
  const r = await httpCall(url, method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

// ---------------------------------------------------------------- one connection

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
  body: any;
}

/** One keep-alive connection (an agent of one socket): the calls of one worker go over it in turn. */
function connection(url: string) {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    call(method: string, path: string, token: string, body?: unknown): Promise<Reply> {
      const data = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            method,
            path,
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              ...(data === undefined
                ? {}
                : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString();
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
            });
          },
        );
        req.on('error', reject);
        req.end(data);
      });
    },
    close: () => agent.destroy(),
  };
}

/** A taker's private stream: the house's quotes by request id, and whoever waits for one. */
async function quoteFeed(url: string, token: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/tape`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise((res, rej) => {
    ws.once('open', res);
    ws.once('error', rej);
  });
  const seen = new Map<string, number>();
  const waiting = new Map<string, (price: number) => void>();
  ws.on('message', (d) => {
    const s = d.toString();
    if (!s.includes('"parlayQuote"')) return;
    const f = JSON.parse(s);
    if (f.event !== 'parlayQuote' || !String(f.data.id).startsWith('house:')) return;
    const w = waiting.get(f.data.requestId);
    if (w !== undefined) w(f.data.price);
    else seen.set(f.data.requestId, f.data.price);
  });
  return {
    /** The house's price on the request, from the stream (or null after QUOTE_WAIT_MS). */
    wait(requestId: string): Promise<number | null> {
      const p = seen.get(requestId);
      if (p !== undefined) {
        seen.delete(requestId);
        return Promise.resolve(p);
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(requestId);
          resolve(null);
        }, QUOTE_WAIT_MS);
        waiting.set(requestId, (price) => {
          clearTimeout(timer);
          waiting.delete(requestId);
          resolve(price);
        });
      });
    },
    forget: (requestId: string) => seen.delete(requestId),
    close: () => ws.terminate(),
  };
}

// ---------------------------------------------------------------- a target: one server, set up

interface Target {
  label: string;
  server: Server;
  url: string;
  takers: string[];
  /** The two order accounts' tokens (buy on one outcome, then the other, as bench:orders-http). */
  orderTokens: [string, string];
  legs: { id: string }[];
  books: string[][];
  /** The house's price on the legs (a bet's maxPrice), or null when the server has no one-call bet. */
  betPrice: number | null;
}

/** SIGTERM (the server's clean shutdown) and its exit. */
async function stop(s: Server): Promise<void> {
  if (s.proc.exitCode !== null || s.proc.signalCode !== null) return;
  const exited = new Promise((res) => s.proc.once('exit', res));
  s.proc.kill('SIGTERM');
  await exited;
}

async function token(url: string, c: { clientId: string; clientSecret: string }) {
  return fetchToken(url, c.clientId, c.clientSecret);
}

/**
 * A server of `checkout` with the house configured. The house account exists only once a client
 * made it, so the store is set up on a first start and the server restarted with
 * PARLAY_HOUSE_ACCOUNT naming it, as an operator would.
 */
async function prepare(
  label: string,
  checkout: string,
  dirs: string[],
  nodeOptions?: string,
): Promise<Target> {
  const flags = [nodeOptions, DIAG ? `--import ${DIAG_MODULE}` : undefined].filter((x) => x);
  const env: Record<string, string> = {
    ...benchAppEnv(dirs, 'silent'),
    ...(flags.length === 0 ? {} : { NODE_OPTIONS: flags.join(' ') }),
    TICKBOOK_DEMO: 'false',
    PARLAY_MAX_OPEN_REQUESTS: '10000',
    PARLAY_HOUSE_BANKROLL: '10000000',
    PARLAY_HOUSE_GAME_EXPOSURE: '10000000',
  };
  const first = await spawnServer(env, checkout);
  const url0 = first.url;
  const admin = await fetchToken(url0, BENCH_ADMIN.id, BENCH_ADMIN.secret);
  const books = await createGame(url0, admin, [
    { type: 'MONEY', description: 'Moneyline' },
    { type: 'TOTAL', strike: 220.5, description: 'Total 220.5' },
    ...Array.from({ length: 10 }, (_, i) => ({
      type: 'SPREAD',
      strike: -0.5 - i,
      description: `Spread ${i}`,
    })),
  ]);
  const client = async (name: string, amount: number) => {
    const c = await ok(url0, 'POST', '/admin/v1/clients', admin, { name });
    await ok(url0, 'POST', `/admin/v1/accounts/${c.accountId}/deposits`, admin, { currency: 'CASH', amount });
    return c as { clientId: string; clientSecret: string; accountId: string };
  };
  const house = await client('house', 1e7);
  const orderClients = [await client('maker', 1e9), await client('taker', 1e9)];
  const takerClients = [];
  for (let i = 0; i < CONNECTIONS; i++) takerClients.push(await client(`parlay-taker-${i}`, 1e6));
  // The pricer reads each leg's price from the books: bids on both outcomes of the two leg markets.
  const makerToken = await token(url0, orderClients[0]!);
  for (const m of books.slice(0, 2))
    for (const outcomeId of m)
      await ok(url0, 'POST', '/nbx/v2/emm/orders/place', makerToken, {
        outcomeId,
        price: 0.45,
        qty: 1_000_000,
        currency: 'CASH',
        tif: 'GTC',
      });
  await stop(first);

  env.PARLAY_HOUSE_ACCOUNT = house.accountId;
  const server = await spawnServer(
    env,
    checkout,
    PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROF],
  );
  const url = server.url;
  const takers = [];
  for (const c of takerClients) takers.push(await token(url, c));
  const legs = [{ id: books[0]![0]! }, { id: books[1]![1]! }];
  // The house's price on these legs (the same for every request: the books do not move), and
  // whether this server takes a bet in one call: a probe with a maxPrice nothing fills (409 with
  // the open request) on a server that has it, 400 on one that does not.
  const probe = await httpCall(url, 'POST', '/nbx/v1/parlay/request', takers[0]!, {
    outcomes: legs,
    wager: { stake: 1, maxPrice: 0.000001, clientOrderId: 'probe' },
  });
  let betPrice: number | null = null;
  if (probe.status === 409) {
    const r = await ok(url, 'GET', `/nbx/v1/parlay/request/${probe.body.details.requestId}`, takers[0]!);
    betPrice = r.quotes.find((q: { id: string }) => q.id.startsWith('house:')).price;
  }
  return {
    label,
    server,
    url,
    takers,
    orderTokens: [await token(url, orderClients[0]!), await token(url, orderClients[1]!)],
    legs,
    books: books.slice(2),
    betPrice,
  };
}

// ---------------------------------------------------------------- the two loads

interface Result {
  ops: number;
  perSec: number;
  /** Round trip (wager) or placement (orders), ms. */
  lat: number[];
  /** The wager call alone, ms (wager load only). */
  wager: number[];
  failed: number;
  /** Round trips whose quote came in the request's 201. */
  inAck: number;
  cpuUs: number;
}

type Load = 'wager' | 'bet' | 'orders';

async function run(t: Target, kind: Load, seconds: number): Promise<Result> {
  const conns = Array.from({ length: CONNECTIONS }, () => connection(t.url));
  const feeds = kind === 'wager' ? await Promise.all(t.takers.map((k) => quoteFeed(t.url, k))) : [];
  const r: Result = { ops: 0, perSec: 0, lat: [], wager: [], failed: 0, inAck: 0, cpuUs: 0 };
  const prices = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];
  let n = 0;
  const cpu0 = await t.server.cpu();
  const t0 = now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    conns.map(async (c, w) => {
      while (now() < end) {
        const k = n++;
        const s0 = now();
        if (kind === 'orders') {
          const side = (k >> 3) & 1;
          const m = t.books[k % t.books.length]!;
          const res = await c.call('POST', '/nbx/v2/emm/orders/place', t.orderTokens[side]!, {
            outcomeId: m[side],
            price: prices[(k * 7) % prices.length],
            qty: 100 * (1 + (k % 5)),
            currency: 'CASH',
            tif: 'GTC',
          });
          if (res.status !== 201) r.failed++;
          else {
            r.ops++;
            r.lat.push(now() - s0);
          }
          continue;
        }
        const taker = t.takers[w]!;
        if (kind === 'bet') {
          const bet = await c.call('POST', '/nbx/v1/parlay/request', taker, {
            outcomes: t.legs,
            wager: { stake: 1, maxPrice: t.betPrice, clientOrderId: `w${serial++}` },
          });
          if (bet.status !== 201 || bet.body[0].status !== 'Filled') r.failed++;
          else {
            r.ops++;
            r.lat.push(now() - s0);
          }
          continue;
        }
        const req = await c.call('POST', '/nbx/v1/parlay/request', taker, { outcomes: t.legs });
        if (req.status !== 201) {
          r.failed++;
          continue;
        }
        const request = req.body[0];
        const inAck = request.quotes.find((q: { id: string }) => q.id.startsWith('house:'));
        let price: number | null;
        if (inAck !== undefined) {
          r.inAck++;
          feeds[w]!.forget(request.id);
          price = inAck.price;
        } else price = await feeds[w]!.wait(request.id);
        if (price === null) {
          r.failed++;
          continue;
        }
        const s1 = now();
        const wager = await c.call('POST', `/nbx/v1/parlay/request/${request.id}/wager`, taker, {
          stake: 1,
          maxPrice: price,
          clientOrderId: `w${serial++}`,
        });
        const s2 = now();
        if (wager.status !== 201) r.failed++;
        else {
          r.ops++;
          r.lat.push(s2 - s0);
          r.wager.push(s2 - s1);
        }
      }
    }),
  );
  const wall = (now() - t0) / 1000;
  r.cpuUs = ((await t.server.cpu()) - cpu0) / Math.max(1, r.ops);
  r.perSec = r.ops / wall;
  for (const c of conns) c.close();
  for (const f of feeds) f.close();
  return r;
}

/** What bench/lib/server-diag.mjs reports for one load. */
interface Diag {
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: { count: number; ms: number; maxMs: number };
  fdatasync: { count: number; p50: number; p99: number; max: number };
  cpuMs: { main: number; startThreads: number; laterThreads: number };
}

/** `load` run with the server's diagnostics (--diag) measuring it: reset before, read after. */
async function diagnosed(t: Target, load: () => Promise<Result>): Promise<{ r: Result; d?: Diag }> {
  if (!DIAG) return { r: await load() };
  t.server.proc.kill('SIGUSR2');
  const r = await load();
  const d = await new Promise<Diag>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no diag message from the server')), 5000);
    const on = (m: { kind: string; report: Diag }) => {
      if (m.kind !== 'diag') return;
      clearTimeout(timer);
      t.server.proc.off('message', on);
      resolve(m.report);
    };
    t.server.proc.on('message', on);
    t.server.proc.kill('SIGUSR1');
  });
  return { r, d };
}

/** The wager call alone as a rate: the connections over its mean latency (Little's law). */
const callRate = (w: Result): number => (CONNECTIONS * 1000) / mean(w.wager);

// ---------------------------------------------------------------- rounds

const dirs: string[] = [];
const targets: Target[] = [];
try {
  if (NODE_OPTIONS === undefined) targets.push(await prepare('this checkout', THIS_CHECKOUT, dirs));
  else
    for (const opt of NODE_OPTIONS)
      targets.push(await prepare(`NODE_OPTIONS="${opt}"`, THIS_CHECKOUT, dirs, opt));
  if (AB !== undefined) targets.push(await prepare(`base ${AB}`, AB, dirs));
  for (const t of targets) {
    await run(t, 'wager', 2); // warm-up: JIT, connections, the house desk
    if (t.betPrice !== null) await run(t, 'bet', 2);
    await run(t, 'orders', 2);
  }
  const f = (x: number) => x.toFixed(1);
  console.log(
    `\nWager round trip with the house quote vs single-order placement, ${CONNECTIONS} connections, ${SECONDS} s per load, ${RUNS} rounds, load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
  console.log(
    '| round | target | wagers/s | round trip p50 / p99 ms | wager call p50 / p99 ms | quote in 201 | failed | server CPU µs/wager | bets in one call/s | bet p50 / p99 ms | bets failed | server CPU µs/bet | orders/s | order p50 / p99 ms | server CPU µs/order | wagers ÷ orders | wager call ÷ orders | bets ÷ orders |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const rows = targets.map(() => [] as { w: Result; b: Result | undefined; o: Result }[]);
  const diags: { round: number; label: string; load: Load; ops: number; d: Diag }[] = [];
  const dash = '—';
  for (let round = 0; round < RUNS; round++) {
    for (const [i, t] of targets.entries()) {
      // the loads this server has, their order rotated by one each round
      const loads: Load[] = t.betPrice === null ? ['wager', 'orders'] : ['wager', 'bet', 'orders'];
      const order = loads.map((_, j) => loads[(j + round) % loads.length]!);
      const got = new Map<Load, Result>();
      for (const k of order) {
        const { r, d } = await diagnosed(t, () => run(t, k, SECONDS));
        got.set(k, r);
        if (d !== undefined) diags.push({ round, label: t.label, load: k, ops: r.ops, d });
      }
      const w = got.get('wager')!;
      const b = got.get('bet');
      const o = got.get('orders')!;
      rows[i]!.push({ w, b, o });
      const bet =
        b === undefined
          ? `${dash} | ${dash} | ${dash} | ${dash}`
          : `${Math.round(b.perSec)} | ${f(pct(b.lat, 50))} / ${f(pct(b.lat, 99))} | ${b.failed} | ${Math.round(b.cpuUs)}`;
      console.log(
        `| ${round + 1} | ${t.label} | ${Math.round(w.perSec)} | ${f(pct(w.lat, 50))} / ${f(pct(w.lat, 99))} | ${f(pct(w.wager, 50))} / ${f(pct(w.wager, 99))} | ${w.inAck}/${w.ops + w.failed} | ${w.failed} | ${Math.round(w.cpuUs)} | ${bet} | ${Math.round(o.perSec)} | ${f(pct(o.lat, 50))} / ${f(pct(o.lat, 99))} | ${Math.round(o.cpuUs)} | ${(w.perSec / o.perSec).toFixed(2)} | ${(callRate(w) / o.perSec).toFixed(2)} | ${b === undefined ? dash : (b.perSec / o.perSec).toFixed(2)} |`,
      );
    }
  }
  console.log(`\nMedians over ${RUNS} rounds (load now ${loadavg()[0]!.toFixed(1)})\n`);
  console.log(
    '| target | wagers/s | round trip p99 ms | wager call p99 ms | server CPU µs/wager | bets/s | bet p99 ms | server CPU µs/bet | orders/s | order p99 ms | server CPU µs/order | per-round ratios wagers ÷ orders | median ratio | wager call alone ÷ orders (per round) | median | per-round ratios bets ÷ orders | median |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---|---:|');
  for (const [i, t] of targets.entries()) {
    const rs = rows[i]!;
    const m = (g: (x: (typeof rs)[number]) => number) => median(rs.map(g));
    const ratios = rs.map((x) => x.w.perSec / x.o.perSec);
    const calls = rs.map((x) => callRate(x.w) / x.o.perSec);
    const bets = rs.flatMap((x) => (x.b === undefined ? [] : [x.b.perSec / x.o.perSec]));
    const mb = (g: (b: Result) => number) =>
      bets.length === 0 ? Number.NaN : median(rs.map((x) => (x.b === undefined ? Number.NaN : g(x.b))));
    const betCols =
      bets.length === 0
        ? `${dash} | ${dash} | ${dash}`
        : `${Math.round(mb((b) => b.perSec))} | ${f(mb((b) => pct(b.lat, 99)))} | ${Math.round(mb((b) => b.cpuUs))}`;
    console.log(
      `| ${t.label} | ${Math.round(m((x) => x.w.perSec))} | ${f(m((x) => pct(x.w.lat, 99)))} | ${f(m((x) => pct(x.w.wager, 99)))} | ${Math.round(m((x) => x.w.cpuUs))} | ${betCols} | ${Math.round(m((x) => x.o.perSec))} | ${f(m((x) => pct(x.o.lat, 99)))} | ${Math.round(m((x) => x.o.cpuUs))} | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ${median(ratios).toFixed(2)} | ${calls.map((x) => x.toFixed(2)).join(', ')} | ${median(calls).toFixed(2)} | ${bets.length === 0 ? dash : bets.map((x) => x.toFixed(2)).join(', ')} | ${bets.length === 0 ? dash : median(bets).toFixed(2)} |`,
    );
  }
  if (DIAG) {
    console.log('\nInside the server during each load (--diag; bench/lib/server-diag.mjs)\n');
    console.log(
      '| round | target | load | loop delay p50 / p99 / max ms | GC pauses: count, total ms, longest ms | fdatasync calls | fdatasync p50 / p99 / max ms | CPU µs per op: main thread, threads from the start (V8 GC helpers, libuv pool), later threads (SQL worker) |',
    );
    console.log('|---:|---|---|---|---|---:|---|---|');
    for (const { round, label, load, ops, d } of diags) {
      const us = (ms: number) => Math.round((ms * 1000) / Math.max(1, ops));
      console.log(
        `| ${round + 1} | ${label} | ${load} | ${f(d.loopDelayMs.p50)} / ${f(d.loopDelayMs.p99)} / ${f(d.loopDelayMs.max)} | ${d.gc.count}, ${Math.round(d.gc.ms)}, ${f(d.gc.maxMs)} | ${d.fdatasync.count} | ${f(d.fdatasync.p50)} / ${f(d.fdatasync.p99)} / ${f(d.fdatasync.max)} | ${us(d.cpuMs.main)}, ${us(d.cpuMs.startThreads)}, ${us(d.cpuMs.laterThreads)} |`,
      );
    }
  }
  console.log(
    '\ngoal (the whole round trip): p99 ≤ 20 ms and wagers/s ≥ 0.5 × orders/s of the same run; the bet in one call is held to the same goal',
  );
  console.log(
    `wager call alone ÷ orders: ${CONNECTIONS} ÷ the wager call's mean latency (Little's law) over the orders/s of the same round`,
  );
} finally {
  for (const t of targets) await stop(t.server);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
