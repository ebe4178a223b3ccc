// A/B of the HTTP edge against another checkout (docs/bench-read-path.md, "A/B against another
// checkout"): the real server of each checkout (its built dist/, bench/lib/app-child.mjs) and a bare
// Fastify serving the same bytes, all three up at once, loaded in rounds that rotate the order.
// Per route: req/s, server CPU µs per request (user + system, and user alone) and each server's
// req/s ÷ bare per round. On a shared machine the same-run ratios and the CPU per request are the
// figures to read; two separate bench runs are not comparable.
//
//   git worktree add /tmp/edge-before <commit> && (cd /tmp/edge-before && npm ci)
//   node --import tsx bench/edge-ab.ts --before /tmp/edge-before [--rounds 5] [--seconds 3]
//        [--routes leagues,event,gmbe,events,parlay]

import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { BENCH_ADMIN, benchAppEnv, type Server, spawnServer, THIS_CHECKOUT } from './lib/app-children.ts';
import { arg, numArg, requiredArg } from './lib/args.ts';

const beforeDir = requiredArg(
  'before',
  'bench/edge-ab.ts --before <checkout> [--rounds 5] [--seconds 3] [--routes …]',
);
const ROUNDS = numArg('rounds', 5);
const SECONDS = numArg('seconds', 3);
const ROUTES = (arg('routes') ?? 'leagues,event,gmbe,parlay').split(',');
const ADMIN = BENCH_ADMIN;
const PARLAY = '/nbx/v1/parlay/request/unauthenticated';

type Named = Server & { name: string };

const dirs: string[] = [];
async function spawn(name: string, checkout: string, env: Record<string, string>): Promise<Named> {
  return Object.assign(await spawnServer(env, checkout), { name });
}

/** [user + system, user] CPU µs the server has used so far. */
async function cpu(s: Named): Promise<[number, number]> {
  return [await s.cpu(), await s.userCpu()];
}

const call = httpCall;
const token = fetchToken;

/** A reader token, the measured paths and priceable 3-leg same-game sets of one server's demo. */
async function setup(s: Server) {
  const admin = await token(s.url, ADMIN.id, ADMIN.secret);
  const c = await call(s.url, 'POST', '/admin/v1/clients', admin, { name: 'reader', scopes: ['read:tape'] });
  const reader = await token(s.url, c.body.clientId, c.body.clientSecret);
  const events: { id: string; marketIds: string[] }[] = (
    await call(s.url, 'GET', '/nbx/v2/emm/events?type=Game&limit=100', reader)
  ).body;
  const big = [...events].sort((a, b) => b.marketIds.length - a.marketIds.length)[0]!;
  const sets: string[][] = [];
  for (const ev of events) {
    if (sets.length >= 8) break;
    const m = await call(s.url, 'GET', `/nbx/v2/emm/events/getMarketsByEvent/${ev.id}?currency=CASH`, reader);
    const markets = m.body as { type: string; outcomeIds: string[] }[];
    const pick = (re: RegExp, side: number) => markets.find((x) => re.test(x.type))?.outcomeIds[side];
    const legs = [pick(/^money/i, sets.length % 2), pick(/^spread/i, 0), pick(/^total/i, 1)];
    if (legs.some((l) => l === undefined)) continue;
    const q = await call(s.url, 'POST', PARLAY, null, {
      outcomes: legs.map((id) => ({ id })),
      boostId: null,
    });
    if (q.status === 201) sets.push(legs as string[]);
  }
  const paths: Record<string, string> = {
    leagues: '/nbx/v2/emm/event-metadata/leagues',
    event: `/nbx/v2/emm/events/${events[7]!.id}`,
    gmbe: `/nbx/v2/emm/events/getMarketsByEvent/${big.id}?currency=CASH`,
    events: '/nbx/v2/emm/events',
  };
  return { reader, sets, paths };
}

type Setup = Awaited<ReturnType<typeof setup>>;

function loadOptions(s: Server, st: Setup, route: string, bare: boolean): autocannon.Options {
  if (route === 'parlay') {
    return {
      url: s.url,
      connections: 64,
      requests: st.sets.map((ids) => ({
        method: 'POST' as const,
        path: bare ? '/bare/parlay' : PARLAY,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ outcomes: ids.map((id) => ({ id })), boostId: null }),
      })),
    };
  }
  return bare
    ? { url: `${s.url}/bare/${route}`, connections: 32 }
    : { url: s.url + st.paths[route], connections: 32, headers: { authorization: `Bearer ${st.reader}` } };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function measure(s: Named, o: autocannon.Options, seconds: number) {
  const [c0, u0] = await cpu(s);
  const res = await autocannon({ ...o, duration: seconds });
  const [c1, u1] = await cpu(s);
  if (res.non2xx || res.errors) throw new Error(`${s.name}: ${res.non2xx} non-2xx, ${res.errors} errors`);
  const n = Math.max(1, res.requests.total);
  return { rps: res.requests.average, cpu: (c1 - c0) / n, user: (u1 - u0) / n, p99: res.latency.p99 };
}

async function main(): Promise<void> {
  // One at a time: the embedded store and the demo slate are CPU-heavy to create.
  const before = await spawn('before', resolve(beforeDir!), benchAppEnv(dirs));
  const after = await spawn('after', THIS_CHECKOUT, benchAppEnv(dirs));
  const bare = await spawn('bare', THIS_CHECKOUT, { ROLE: 'bare' });
  try {
    const sb = await setup(before);
    const sa = await setup(after);
    for (const r of ROUTES) {
      const res =
        r === 'parlay'
          ? await fetch(after.url + PARLAY, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ outcomes: sa.sets[0]!.map((id) => ({ id })), boostId: null }),
            })
          : await fetch(after.url + sa.paths[r], { headers: { authorization: `Bearer ${sa.reader}` } });
      await bare.store(r, Buffer.from(await res.arrayBuffer()));
    }
    const load = loadavg().map((x) => x.toFixed(1));
    console.log(`edge A/B: ${ROUNDS} rounds × ${SECONDS}s, node ${process.version}, load ${load.join(' ')}`);
    console.log(
      '\n| route | before: req/s, CPU µs/req (user) | after: req/s, CPU µs/req (user) | bare: req/s, CPU µs/req | CPU after ÷ before | before ÷ bare (per round) | after ÷ bare (per round) |',
    );
    console.log('|---|---|---|---|---:|---|---|');
    for (const r of ROUTES) {
      const targets: [Named, autocannon.Options][] = [
        [before, loadOptions(before, sb, r, false)],
        [after, loadOptions(after, sa, r, false)],
        [bare, loadOptions(bare, sa, r, true)],
      ];
      for (const [s, o] of targets) await measure(s, o, 1); // warm-up
      const got: Record<string, Awaited<ReturnType<typeof measure>>[]> = { before: [], after: [], bare: [] };
      const ratio = { before: [] as number[], after: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < 3; k++) {
          const [s, o] = targets[(round + k) % 3]!;
          got[s.name]!.push(await measure(s, o, SECONDS));
        }
        ratio.before.push(got.before!.at(-1)!.rps / got.bare!.at(-1)!.rps);
        ratio.after.push(got.after!.at(-1)!.rps / got.bare!.at(-1)!.rps);
      }
      const m = (k: string, f: 'rps' | 'cpu' | 'user') => median(got[k]!.map((x) => x[f]));
      const cell = (k: string) =>
        `${Math.round(m(k, 'rps'))}, ${m(k, 'cpu').toFixed(1)} (${m(k, 'user').toFixed(1)})`;
      const pct = (xs: number[]) =>
        `**${(median(xs) * 100).toFixed(0)} %** (${xs.map((x) => (x * 100).toFixed(0)).join(' ')})`;
      console.log(
        `| ${r} | ${cell('before')} | ${cell('after')} | ${cell('bare')} | ${(m('after', 'cpu') / m('before', 'cpu')).toFixed(2)} | ${pct(ratio.before)} | ${pct(ratio.after)} |`,
      );
    }
    console.log(
      `\nload average at the end: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    for (const s of [before, after, bare]) s.proc.kill();
    await new Promise((r) => setTimeout(r, 500));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

await main();
