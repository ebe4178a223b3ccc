// What the idempotency window (docs/exchange.md "Idempotency window") keeps in memory and what
// ageing costs. A market maker keys every quote: `--days` days of keyed orders, `--per-hour` an
// hour, each placed and cancelled at once (a quote replaced), on the engine in process. Two runs
// of the same commands, each in a child process of its own: with the window (the scheduler's
// ExpireClientOrderIds at its default window and chunk, issued whenever the reader says one is
// due, as src/runtime/scheduler.ts does) and without it (keys kept for good, as before the window
// existed: the baseline). Printed: heap used after a full GC, the snapshot's size, the keys still
// answered, and the ageing's CPU time: in all, per keyed order, and its longest command.
//
//   node --import tsx --expose-gc bench/key-window.ts [--days 4] [--per-hour 100000]

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Exchange } from '../src/exchange/exchange.ts';
import { TICKS } from '../src/exchange/ticks.ts';
import { KEY_SWEEP_CHUNK } from '../src/runtime/scheduler.ts';
import { setupCommands } from './engine.ts';
import { arg, numArg } from './lib/args.ts';

const DAYS = numArg('days', 4);
const PER_HOUR = numArg('per-hour', 100_000);
const WINDOW_MS = 24 * 3_600_000;
const T0 = 1_800_000_000_000;
const ACCOUNTS = 4;

function run(window: boolean): Record<string, number> {
  const x = new Exchange({ events: false });
  // bench:engine's catalog and funded accounts (acct-0 … acct-999); the first ACCOUNTS key orders
  for (const c of setupCommands()) if (!x.apply(c).ok) throw new Error(`setup: ${c.type}`);
  let ageingNs = 0n;
  let longestNs = 0n;
  let ageings = 0;
  const stepMs = 3_600_000 / PER_HOUR;
  let n = 0;
  for (let h = 0; h < DAYS * 24; h++) {
    for (let i = 0; i < PER_HOUR; i++, n++) {
      const ts = T0 + Math.floor(n * stepMs);
      const accountId = `acct-${n % ACCOUNTS}`;
      const orderId = `o${n}`;
      const placed = x.apply({
        type: 'PlaceOrder',
        ts,
        orderId,
        accountId,
        outcomeId: 'm0-a',
        currency: 'CASH',
        price: TICKS[100 + (n % 20)]!,
        qty: 100,
        tif: 'GTC',
        clientOrderId: `q-${n.toString(36)}-${accountId}`,
      });
      if (!placed.ok) throw new Error(`place: ${placed.code}`);
      x.apply({ type: 'CancelOrder', ts, accountId, orderId });
    }
    if (!window) continue;
    const now = T0 + Math.floor(n * stepMs);
    // the scheduler's pass: issue while due (a sweep chunk per pass)
    while (x.clientOrderIdsDue(now, WINDOW_MS)) {
      // CPU time, not wall: on a shared machine a command descheduled midway is not a long command
      const t = process.cpuUsage();
      const r = x.apply({ type: 'ExpireClientOrderIds', ts: now, windowMs: WINDOW_MS, max: KEY_SWEEP_CHUNK });
      const u = process.cpuUsage(t);
      const dt = BigInt((u.user + u.system) * 1000);
      if (!r.ok) throw new Error(`ageing: ${r.code}`);
      ageingNs += dt;
      if (dt > longestNs) longestNs = dt;
      ageings++;
    }
  }
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  const snapshotMb = x.snapshot().length / 1e6;
  let answered = 0;
  for (let k = 0; k < n; k += 97) {
    const accountId = `acct-${k % ACCOUNTS}`;
    if (x.orderIdForClientOrderId(accountId, `q-${k.toString(36)}-${accountId}`) !== undefined) answered++;
  }
  return {
    keyedOrders: n,
    heapMb,
    snapshotMb,
    answeredShare: answered / Math.ceil(n / 97),
    ageings,
    ageingMsTotal: Number(ageingNs) / 1e6,
    longestAgeingMs: Number(longestNs) / 1e6,
    nsPerKeyedOrder: Number(ageingNs) / n,
  };
}

const mode = arg('child');
if (mode !== undefined) {
  process.stdout.write(JSON.stringify(run(mode === 'window')));
} else {
  const self = fileURLToPath(import.meta.url);
  const rows: Record<string, Record<string, number>> = {};
  for (const m of ['baseline', 'window']) {
    const out = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--expose-gc',
        self,
        '--child',
        m,
        '--days',
        String(DAYS),
        '--per-hour',
        String(PER_HOUR),
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (out.status !== 0) throw new Error(out.stderr);
    rows[m] = JSON.parse(out.stdout) as Record<string, number>;
  }
  const b = rows.baseline!;
  const w = rows.window!;
  const f = (v: number, d = 1) => v.toLocaleString('en-US', { maximumFractionDigits: d });
  console.log(
    `\n${f(b.keyedOrders!, 0)} keyed orders (placed and cancelled), ${DAYS} days at ${f(PER_HOUR, 0)} an hour, ` +
      `window 24 h, sweep chunk ${f(KEY_SWEEP_CHUNK, 0)}\n`,
  );
  console.log(
    '| run | heap used after GC, MB | snapshot, MB | keys still answered | ageing commands | ageing CPU total, ms | longest ageing command (CPU), ms | ageing CPU per keyed order, ns |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of [
    ['keys kept for good (baseline)', b],
    ['idempotency window', w],
  ] as const) {
    console.log(
      `| ${name} | ${f(r.heapMb!)} | ${f(r.snapshotMb!)} | ${f(r.answeredShare! * 100, 0)} % | ${f(r.ageings!, 0)} | ${f(r.ageingMsTotal!)} | ${f(r.longestAgeingMs!, 2)} | ${f(r.nsPerKeyedOrder!, 0)} |`,
    );
  }
  console.log(
    `\nwindow ÷ baseline: heap ${f(w.heapMb! / b.heapMb!, 2)}, snapshot ${f(w.snapshotMb! / b.snapshotMb!, 2)}`,
  );
}
