// Stale resumes against the built server (docs/stream.md "Replays and budgets"): a retained tape
// of a few tens of MB is built with ordinary orders; then, while an order flow keeps ordinary
// subscribers busy and a probe polls /healthz every 10 ms, 4 connections of the public viewer
// credential each send 10 `subscribe tape` with a fromSeq from the start of that tape (then, in a
// third phase, from 1,000 commands back, within a viewer's replay allowance). Reported:
// /healthz p50/p99/max during the attack, ordinary subscribers' frame latency (arrival minus the
// order's created_at, both on this machine's clock) p50/p99, and the bytes the attack connections
// received. The same run measures the same steps without the attack (quiet), and, with --base
// <checkout>, the same against another checkout's built server (an A/B in one run).
// Goals: /healthz p99 <= 100 ms, ordinary frame latency p99 <= 50 ms.
//
//   node --import tsx bench/resume-abuse.ts [--ticks 30000] [--seconds 8] [--subscribers 20]
//     [--flow 50] [--base /tmp/stream-base]

import { WebSocket } from 'ws';
import { fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { BENCH_ADMIN, benchAppEnv, spawnServer } from './lib/app-children.ts';
import { arg, numArg } from './lib/args.ts';

const TICKS = numArg('ticks', 30_000);
const SECONDS = numArg('seconds', 8);
const SUBSCRIBERS = numArg('subscribers', 20);
const FLOW = numArg('flow', 50);
const BASE = arg('base');

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

interface Phase {
  health: number[];
  latency: number[];
  attackBytes: number;
}

async function measureServer(
  label: string,
  checkout?: string,
): Promise<{ quiet: Phase; attack: Phase; recent: Phase }> {
  const dirs: string[] = [];
  const srv = await spawnServer({ ...benchAppEnv(dirs, 'warn') }, checkout);
  const url = srv.url;
  try {
    const admin = await fetchToken(url, BENCH_ADMIN.id, BENCH_ADMIN.secret);
    const c = await httpCall(url, 'POST', '/admin/v1/clients', admin, { name: 'abuse trader' });
    await httpCall(url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, admin, {
      currency: 'CASH',
      amount: 1_000_000_000,
    });
    const trader = await fetchToken(url, c.body.clientId, c.body.clientSecret);
    const markets = (await httpCall(url, 'GET', '/nbx/v2/emm/markets/open?currency=CASH', trader)).body as {
      id: string;
      outcomeIds: [string, string];
    }[];
    const m = markets[0]!;
    const cfg = (await httpCall(url, 'GET', '/ui/config.json', null)).body;
    const viewer = await fetchToken(url, cfg.viewer.clientId, cfg.viewer.clientSecret);
    const metricsText = async () => (await fetch(`${url}/metrics`)).text();
    const journalSeq = async () => {
      // The newest journal seq the stream released: a fresh subscriber's first heartbeat says it.
      const ws = new WebSocket(`${url.replace('http', 'ws')}/tape`, {
        headers: { authorization: `Bearer ${viewer}` },
      });
      return new Promise<number>((resolve) => {
        ws.on('open', () => ws.send(JSON.stringify({ event: 'subscribe', data: 'lifecycle' })));
        ws.on('message', (d) => {
          const f = JSON.parse(d.toString());
          if (f.event === 'heartbeat') {
            ws.close();
            resolve(f.data.journalSeq);
          }
        });
      });
    };
    const start = await journalSeq();

    // The retained tape: batches of resting orders, each batch then cancelled in one command.
    const place = (i: number) => ({
      outcomeId: m.outcomeIds[i & 1],
      price: 0.02 + (i % 5) / 100,
      qty: 10,
      currency: 'CASH',
      tif: 'GTC',
    });
    for (let made = 0; made < TICKS; made += 100) {
      const batch = Array.from({ length: 50 }, (_, i) => place(made + i));
      await httpCall(url, 'POST', '/nbx/v2/emm/orders/batch', trader, batch);
      await httpCall(url, 'DELETE', '/nbx/v2/emm/orders/all', trader);
    }
    const bytesLine = /^tickbook_stream_retained_bytes ([0-9.e+]+)$/m.exec(await metricsText());
    console.log(
      `${label}: ${TICKS.toLocaleString('en-US')} ticks retained (${bytesLine ? (Number(bytesLine[1]) / 1_048_576).toFixed(1) : '?'} MiB charged)`,
    );

    // Ordinary subscribers: the market's book and the tape.
    const latency: number[] = [];
    const subs: WebSocket[] = [];
    for (let k = 0; k < SUBSCRIBERS; k++) {
      const ws = new WebSocket(`${url.replace('http', 'ws')}/tape`, {
        headers: { authorization: `Bearer ${trader}` },
      });
      ws.on('message', (d) => {
        const s = d.toString();
        if (!s.startsWith('{"type"')) return;
        const i = s.indexOf('"created_at":"');
        if (i > 0) latency.push(Date.now() - Date.parse(s.slice(i + 14, i + 38)));
      });
      await new Promise<void>((r) => ws.once('open', () => r()));
      ws.send(JSON.stringify({ event: 'subscribe', data: m.id }));
      subs.push(ws);
    }

    const phase = async (attackFrom: number | undefined): Promise<Phase> => {
      latency.length = 0;
      const health: number[] = [];
      let on = true;
      const probe = (async () => {
        while (on) {
          const t = performance.now();
          await (await fetch(`${url}/healthz`)).arrayBuffer();
          health.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const flow = (async () => {
        for (let i = 0; on; i++) {
          const t = performance.now();
          const r = await httpCall(url, 'POST', '/nbx/v2/emm/orders/place', trader, place(i));
          if (r.status === 201) await httpCall(url, 'DELETE', `/nbx/v2/emm/orders/${r.body.id}`, trader);
          const wait = 1000 / FLOW - (performance.now() - t);
          if (wait > 0) await new Promise((res) => setTimeout(res, wait));
        }
      })();
      let attackBytes = 0;
      const attackers: WebSocket[] = [];
      if (attackFrom !== undefined) {
        for (let k = 0; k < 4; k++) {
          const ws = new WebSocket(`${url.replace('http', 'ws')}/tape`, {
            headers: { authorization: `Bearer ${viewer}` },
          });
          ws.on('message', (d: Buffer) => {
            attackBytes += d.length;
          });
          ws.on('error', () => {});
          await new Promise<void>((r) => ws.once('open', () => r()));
          attackers.push(ws);
        }
        for (let i = 0; i < 10; i++) {
          for (const ws of attackers)
            ws.send(JSON.stringify({ event: 'subscribe', data: 'tape', fromSeq: start }));
        }
      }
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      on = false;
      await Promise.all([probe, flow]);
      for (const ws of attackers) ws.terminate();
      return { health, latency: [...latency], attackBytes };
    };
    const quiet = await phase(undefined);
    const attack = await phase(start);
    // Resumes within a viewer's replay allowance (about 1,000 commands back): paced replays.
    const recent = await phase((await journalSeq()) - 1000);
    for (const ws of subs) ws.terminate();
    return { quiet, attack, recent };
  } finally {
    srv.proc.kill('SIGTERM');
    await new Promise((r) => srv.proc.once('exit', r));
    const { rmSync } = await import('node:fs');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

const runs: [string, Awaited<ReturnType<typeof measureServer>>][] = [];
runs.push(['this checkout', await measureServer('this checkout')]);
if (BASE !== undefined) runs.push([BASE, await measureServer(BASE, BASE)]);

const f1 = (x: number) => x.toFixed(1);
console.log(
  `\n40 stale tape resumes (4 viewer connections × 10) vs none; ${SUBSCRIBERS} ordinary subscribers, ${FLOW} orders/s, ${SECONDS} s per phase\n`,
);
console.log(
  '| server | phase | /healthz p50 ms | /healthz p99 ms | /healthz max ms | probes | frame latency p50 ms | frame latency p99 ms | frames | attack MiB received |',
);
console.log('|---|---|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const [label, r] of runs) {
  for (const [name, p] of [
    ['quiet', r.quiet],
    ['attack: stale (whole tape)', r.attack],
    ['attack: recent (1,000 commands)', r.recent],
  ] as const) {
    console.log(
      `| ${label} | ${name} | ${f1(pct(p.health, 50))} | ${f1(pct(p.health, 99))} | ${f1(Math.max(...p.health))} | ${p.health.length} | ${f1(pct(p.latency, 50))} | ${f1(pct(p.latency, 99))} | ${p.latency.length} | ${f1(p.attackBytes / 1_048_576)} |`,
    );
  }
}
console.log('\ngoals: /healthz p99 <= 100 ms and ordinary frame latency p99 <= 50 ms under the attack');
