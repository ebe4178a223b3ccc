// Journal benchmark (docs/bench-recovery.md, docs/journal.md): recovery time and group-commit
// throughput with the real Exchange.
//
//   node --import tsx bench/recovery.ts [orders=1000000] [catalog=100000] [seconds=5]
//
// 1. Journals `orders` trading commands (funded accounts, random bids around the middle of the
//    book — many crossing — cancels, IOC/GTT, expiry sweeps) through the Sequencer into PGlite
//    (submitMany chunks: group commits of 10,000), then times recovery from scratch in a new
//    process (a restart; SQL, JSON.parse and apply timed apart) and from a snapshot near the end.
//    Baseline: applying the same commands to a fresh Exchange (events on, as in recovery) in memory.
// 2. Replays `catalog` catalog commands (teams, events with markets, status changes).
// 3. Group-commit throughput with 32 concurrent submitters for `seconds` s each, on a no-op store
//    (baseline: the sequencer and Exchange alone), PGlite and PostgreSQL (when DATABASE_URL is set).
// 4. Journal encoding: json (chosen, migration 006) against jsonb (before 006) and bytea: rows/s
//    appended on PGlite at 25 rows per statement (an HTTP group commit) and 1,000, and rows/s read
//    back as one text per page.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Exchange } from '../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../src/exchange/types.ts';
import { FileJournal } from '../src/journal/file-journal.ts';
import { appendCommands } from '../src/journal/journal-store.ts';
import { recover } from '../src/journal/recover.ts';
import { Sequencer } from '../src/journal/sequencer.ts';
import { PgliteStore } from '../src/store/pglite-store.ts';
import { PostgresStore } from '../src/store/postgres-store.ts';
import type { Queryable, Store } from '../src/store/types.ts';
import { openTestStore, pgliteTemplate } from '../test/helpers/store.ts';
import { type Cmd, setupCommands, take, tradingCommands } from '../test/journal/workload.ts';

const ORDERS = Number(process.argv[2] ?? 1_000_000);
const CATALOG = Number(process.argv[3] ?? 100_000);
const SECONDS = Number(process.argv[4] ?? 5);
const SHAPE = { events: 20, marketsPerEvent: 5, accounts: 500 };
const accepted = (r: CommandResult) => r.ok;
const rows: string[][] = [];
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function table(): void {
  const head = ['measurement', 'value', 'vs baseline'];
  const all = [head, ...rows];
  const w = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  for (const r of all) console.log(r.map((c, i) => (c ?? '').padEnd(w[i]!)).join('  '));
}

async function freshPglite(name: string): Promise<{ store: PgliteStore; dir: string }> {
  const dir = join(tmpdir(), 'tickbook-bench-recovery', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(tmpdir(), 'tickbook-bench-recovery'), { recursive: true });
  cpSync(await pgliteTemplate(), dir, { recursive: true });
  const store = await PgliteStore.open(dir);
  await store.migrate();
  return { store, dir };
}

function catalogCommands(n: number): Cmd[] {
  const out: Cmd[] = [{ type: 'CreateLeague', code: 'NBA', name: 'National Basketball Association' }];
  let e = 0;
  while (out.length < n) {
    const home = `c-t-${e}-h`;
    const away = `c-t-${e}-a`;
    for (const id of [home, away]) {
      out.push({
        type: 'CreateTeam',
        team: { id, league: 'NBA', name: id, shortName: id, symbol: 'SYM', mascot: 'M' },
      });
    }
    const markets = (['MONEY', 'SPREAD', 'TOTAL'] as const).map((type, m) => ({
      id: `c-m-${e}-${m}`,
      type,
      strike: m === 0 ? null : m === 1 ? -3.5 : 221.5,
      description: `market ${e}/${m}`,
      outcomes: [
        { id: `c-m-${e}-${m}-0`, description: 'home/over' },
        { id: `c-m-${e}-${m}-1`, description: 'away/under' },
      ] as [{ id: string; description: string }, { id: string; description: string }],
    }));
    out.push({
      type: 'CreateEvent',
      event: {
        id: `c-ev-${e}`,
        type: 'Game',
        status: 'INITIAL',
        description: `${away} @ ${home}`,
        league: 'NBA',
        scheduledStart: 1_900_000_000_000 + e * 60_000,
      },
      game: { id: `c-g-${e}`, homeTeamId: home, awayTeamId: away },
      markets,
    });
    out.push({ type: 'SetEventStatus', eventId: `c-ev-${e}`, status: 'OPEN_PREGAME' });
    out.push({ type: 'SetGameScore', gameId: `c-g-${e}`, homeScore: e % 7, awayScore: e % 5 });
    e++;
  }
  return out.slice(0, n);
}

/** Journals cmds through a Sequencer in submitMany chunks; returns the live machine and timings. */
async function journal(
  store: Store,
  cmds: Cmd[],
  snapshotEvery: number,
): Promise<{ live: Exchange; ms: number; accepted: number }> {
  const live = new Exchange();
  let clock = 1_800_000_000_000;
  const seqr = new Sequencer<Command, CommandResult>(live, accepted, store, () => (clock += 1), {
    snapshotEvery,
    maxBatch: 10_000,
  });
  const t0 = performance.now();
  let snapped = false;
  for (let i = 0; i < cmds.length; i += 10_000) {
    await seqr.submitMany(cmds.slice(i, i + 10_000));
    if (i % 100_000 === 0 && i > 0) process.stderr.write(`  journaled ${i}\r`);
    // One snapshot about 1 % before the end, for the snapshot + tail recovery.
    if (!snapped && cmds.length - (i + 10_000) <= Math.max(10_000, cmds.length * 0.01)) {
      await seqr.snapshotNow();
      snapped = true;
    }
  }
  await seqr.close();
  return { live, ms: performance.now() - t0, accepted: seqr.committedSeq };
}

function applyInMemory(cmds: Cmd[]): number {
  const ex = new Exchange();
  let clock = 1_800_000_000_000;
  const t0 = performance.now();
  for (const c of cmds) {
    clock += 1;
    ex.apply({ ...c, ts: clock } as Command);
  }
  return performance.now() - t0;
}

async function recoverySection(): Promise<void> {
  console.error(`generating ${ORDERS} trading commands ...`);
  const cmds = [...setupCommands(SHAPE), ...take(tradingCommands(SHAPE, 1), ORDERS)];
  const baseline = applyInMemory(cmds);
  rows.push([`apply ${cmds.length} commands in memory (baseline)`, fmt(baseline), '1.00']);
  const fresh = await freshPglite('orders');
  const dir = fresh.dir;
  let store = fresh.store;
  try {
    // snapshotEvery past the end: the journal holds no snapshot until the one made below.
    const j = await journal(store, cmds, Number.MAX_SAFE_INTEGER);
    rows.push([
      `journal via sequencer into PGlite (${j.accepted} accepted)`,
      fmt(j.ms),
      (j.ms / baseline).toFixed(2),
    ]);
    // Drop the snapshot close() wrote at the very end; keep the one ~1 % before the end.
    await store.exec('DELETE FROM snapshots WHERE seq = (SELECT max(seq) FROM snapshots)');
    // A restart: a new process opens the data directory and recovers from scratch. It is the
    // first read of the journal since it was written (PGlite sets hint bits as it reads the pages
    // in), with empty database buffers and unoptimized code, events on as ExchangeRuntime.open()
    // recovers. The child reports SQL time and JSON.parse time apart from the rest (apply).
    await store.close();
    const child = JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: { ...process.env, BENCH_RECOVER_DIR: dir },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1 << 20,
      }),
    ) as ChildRecovery;
    if (child.hash !== j.live.hash()) throw new Error('recovery from scratch: hash differs');
    rows.push([
      `recover from scratch in a new process (a restart): replay ${child.replayed} rows`,
      fmt(child.ms),
      (child.ms / baseline).toFixed(2),
    ]);
    rows.push([
      '  of which SQL + JSON.parse + apply and the rest',
      `${fmt(child.sqlMs)} + ${fmt(child.parseMs)} + ${fmt(child.ms - child.sqlMs - child.parseMs)}`,
      '',
    ]);
    rows.push(['  (before it: opening the data directory)', fmt(child.openMs), '']);
    store = await PgliteStore.open(dir);
    const ts0 = performance.now();
    const bytes = j.live.snapshot();
    const snapMs = performance.now() - ts0;
    rows.push([
      `Exchange.snapshot() of the final state: ${(bytes.byteLength / 1e6).toFixed(1)} MB`,
      fmt(snapMs),
      (snapMs / baseline).toFixed(2),
    ]);
    const fromSnap = await recover(store, () => new Exchange(), { isAccepted: accepted });
    if (fromSnap.machine.hash() !== j.live.hash()) throw new Error('recovery from snapshot: hash differs');
    rows.push([
      `recover from snapshot: load+restore, then replay ${fromSnap.replayed}`,
      `${fmt(fromSnap.snapshotLoadMs)} + ${fmt(fromSnap.replayMs)}`,
      ((fromSnap.snapshotLoadMs + fromSnap.replayMs) / baseline).toFixed(2),
    ]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ChildRecovery {
  replayed: number;
  ms: number;
  sqlMs: number;
  parseMs: number;
  openMs: number;
  hash: string;
}

/** The child process of the from-scratch recovery: prints a ChildRecovery as JSON. */
async function recoverInChild(dir: string): Promise<void> {
  const t0 = performance.now();
  const store = await PgliteStore.open(dir);
  const openMs = performance.now() - t0;
  let sqlMs = 0;
  let parseMs = 0;
  const parse = JSON.parse;
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    const t = performance.now();
    const v = parse(text, reviver);
    parseMs += performance.now() - t;
    return v;
  };
  const timed: Store = {
    kind: store.kind,
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      const t = performance.now();
      const r = await store.query<T>(sql, params);
      sqlMs += performance.now() - t;
      return r;
    },
    exec: (sql) => store.exec(sql),
    transaction: (fn) => store.transaction(fn),
    migrate: () => store.migrate(),
    appliedMigrations: () => store.appliedMigrations(),
    pendingMigrations: () => store.pendingMigrations(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  const r = await recover(timed, () => new Exchange(), { isAccepted: accepted, fromScratch: true });
  JSON.parse = parse;
  const out: ChildRecovery = {
    replayed: r.replayed,
    ms: r.replayMs + r.snapshotLoadMs,
    sqlMs,
    parseMs,
    openMs,
    hash: r.machine.hash(),
  };
  await store.close();
  process.stdout.write(JSON.stringify(out));
}

async function catalogSection(): Promise<void> {
  const cmds = catalogCommands(CATALOG);
  const baseline = applyInMemory(cmds);
  rows.push([`apply ${cmds.length} catalog commands in memory (baseline)`, fmt(baseline), '1.00']);
  const { store, dir } = await freshPglite('catalog');
  try {
    const j = await journal(store, cmds, Number.MAX_SAFE_INTEGER);
    await store.exec('DELETE FROM snapshots');
    const r = await recover(store, () => new Exchange(), { isAccepted: accepted });
    if (r.machine.hash() !== j.live.hash()) throw new Error('catalog recovery: hash differs');
    rows.push([
      `recover ${r.replayed} catalog commands from scratch`,
      fmt(r.replayMs),
      (r.replayMs / baseline).toFixed(2),
    ]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const nullStore: Store = {
  kind: 'pglite',
  query: async () => ({ rows: [] }),
  exec: async () => {},
  transaction: async <T>(fn: (tx: Queryable) => Promise<T>) => fn({ query: async () => ({ rows: [] }) }),
  migrate: async () => [],
  appliedMigrations: async () => [],
  pendingMigrations: async () => [],
  ping: async () => true,
  close: async () => {},
};

/** 32 submitters loop submit() for SECONDS; returns accepted commands/s and commits/s. */
async function throughput(store: Store): Promise<{ perSec: number; commitsPerSec: number; batch: number }> {
  const ex = new Exchange();
  const seqr = new Sequencer<Command, CommandResult>(ex, accepted, store, Date.now, {
    snapshotEvery: Number.MAX_SAFE_INTEGER,
  });
  await seqr.submitMany(setupCommands(SHAPE));
  const gen = tradingCommands(SHAPE, 7);
  let commits = 0;
  seqr.onCommitted(() => commits++);
  const start = seqr.committedSeq;
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  commits = 0;
  const worker = async () => {
    while (performance.now() < end) await seqr.submit(gen.next().value as Cmd);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  const s = (performance.now() - t0) / 1000;
  const n = seqr.committedSeq - start;
  await seqr.flush();
  return { perSec: n / s, commitsPerSec: commits / s, batch: n / Math.max(1, commits) };
}

async function throughputSection(): Promise<void> {
  const base = await throughput(nullStore);
  rows.push(['32 submitters, no-op store (baseline)', `${Math.round(base.perSec)} cmd/s`, '1.00']);
  const { store, dir } = await freshPglite('tp');
  try {
    const p = await throughput(store);
    rows.push([
      `32 submitters, PGlite (${Math.round(p.commitsPerSec)} commits/s, ${p.batch.toFixed(1)} cmd/commit)`,
      `${Math.round(p.perSec)} cmd/s`,
      (p.perSec / base.perSec).toFixed(3),
    ]);
    // Encoding: the same commands appended as json (the real appendCommands), as jsonb (the
    // statement before migration 006) and as bytea, then read back as one text per page.
    const cmds = take(tradingCommands(SHAPE, 3), 10_000).map((c, i) => ({ ...c, ts: 1_800_000_000_000 + i }));
    await store.exec(`
      CREATE TABLE IF NOT EXISTS bench_journal_json (seq bigint PRIMARY KEY, ts bigint NOT NULL, cmd json NOT NULL);
      CREATE TABLE IF NOT EXISTS bench_journal_jsonb (seq bigint PRIMARY KEY, ts bigint NOT NULL, cmd jsonb NOT NULL);
      CREATE TABLE IF NOT EXISTS bench_journal_bytea (seq bigint PRIMARY KEY, ts bigint NOT NULL, cmd bytea NOT NULL)`);
    const enc = new TextEncoder();
    const append: Record<string, (first: number, slice: typeof cmds) => Promise<unknown>> = {
      json: (first, slice) =>
        appendCommands(
          { query: (sql, p) => store.query(sql.replace('INTO journal', 'INTO bench_journal_json'), p) },
          first,
          slice,
        ),
      jsonb: (first, slice) =>
        store.query(
          `INSERT INTO bench_journal_jsonb (seq, ts, cmd) SELECT $1::bigint + (x.o - 1), (x.c->>'ts')::bigint, x.c
           FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(c, o)`,
          [first, JSON.stringify(slice)],
        ),
      bytea: (first, slice) =>
        store.query(
          'INSERT INTO bench_journal_bytea (seq, ts, cmd) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])',
          [
            slice.map((_, k) => first + k),
            slice.map((c) => c.ts),
            slice.map((c) => enc.encode(JSON.stringify(c))),
          ],
        ),
    };
    // Paired, interleaved trials (the machine is shared and drifts by more than the difference
    // measured): per trial each encoding appends the same commands (1,000 at 25/statement, 10,000
    // at 1,000/statement), in an order that alternates; the first trial warms up. Reported: median
    // rows/s, and in the last column the median over trials of (rows/s ÷ json's in that trial).
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    let nextSeq = 1;
    for (const per of [25, 1000]) {
      const names = per === 25 ? ['json', 'jsonb'] : ['json', 'jsonb', 'bytea'];
      const TRIAL = per === 25 ? 1_000 : 10_000;
      const TRIALS = per === 25 ? 41 : 11;
      const rate: Record<string, number[]> = {};
      const ratio: Record<string, number[]> = {};
      for (let trial = 0; trial < TRIALS; trial++) {
        const ms: Record<string, number> = {};
        for (const name of trial % 2 === 0 ? names : [...names].reverse()) {
          const first = nextSeq;
          nextSeq += TRIAL;
          const t = performance.now();
          for (let i = 0; i < TRIAL; i += per) await append[name]!(first + i, cmds.slice(i, i + per));
          ms[name] = performance.now() - t;
        }
        if (trial === 0) continue;
        for (const name of names) {
          rate[name] = [...(rate[name] ?? []), TRIAL / (ms[name]! / 1000)];
          ratio[name] = [...(ratio[name] ?? []), ms.json! / ms[name]!];
        }
      }
      for (const name of names) {
        rows.push([
          `append as ${name}${name === 'json' ? ' (chosen)' : ''}, ${per}/statement, PGlite (${TRIALS - 1} trials)`,
          `${Math.round(median(rate[name]!))} rows/s`,
          name === 'json' ? '' : median(ratio[name]!).toFixed(2),
        ]);
      }
    }
    // Read everything back (the same commands in both tables) as one text per 10,000-row page.
    for (const name of ['json', 'jsonb']) {
      const t = performance.now();
      let n = 0;
      for (let after = 0; after < nextSeq; after += 10_000) {
        const r = await store.query<{ page: string | null }>(
          `SELECT '[' || string_agg(cmd::text, ',' ORDER BY seq) || ']' AS page FROM bench_journal_${name}
           WHERE seq > $1 AND seq <= $2`,
          [after, after + 10_000],
        );
        const page = r.rows[0]?.page;
        if (page !== null && page !== undefined) n += (JSON.parse(page) as unknown[]).length;
      }
      rows.push([
        `read back ${n / 1000}k cmds stored as ${name} (pages of 10k)`,
        `${Math.round(n / ((performance.now() - t) / 1000))} rows/s`,
        '',
      ]);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (process.env.DATABASE_URL) {
    const pg = await openTestStore('postgres');
    try {
      const r = await throughput(pg);
      rows.push([
        `32 submitters, PostgreSQL (${Math.round(r.commitsPerSec)} commits/s, ${r.batch.toFixed(1)} cmd/commit)`,
        `${Math.round(r.perSec)} cmd/s`,
        (r.perSec / base.perSec).toFixed(3),
      ]);
    } finally {
      await pg.close();
    }
  }
}

/**
 * The whole restart of the real server (startServer, as `npm start`) on a data directory whose
 * segment journal holds `ORDERS` trading commands and no snapshot: process start to listening,
 * beside the replay time and the number of commands replayed. History is marked projected up to
 * the journal's end (the normal state after a crash: the projector trails by a batch at most),
 * so the figure is recovery, not a first projection of a million commands.
 */
async function restartSection(): Promise<void> {
  const dir = join(tmpdir(), `tickbook-bench-restart-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    cpSync(await pgliteTemplate(), join(dir, 'pg'), { recursive: true });
    const store = await PgliteStore.open(join(dir, 'pg'));
    await store.migrate();
    const fj = await FileJournal.open(join(dir, 'journal'));
    const cmds = [...setupCommands(SHAPE), ...take(tradingCommands(SHAPE, 1), ORDERS)];
    const live = new Exchange();
    let clock = 1_800_000_000_000;
    const seqr = new Sequencer<Command, CommandResult>(live, accepted, store, () => (clock += 1), {
      snapshotEvery: Number.MAX_SAFE_INTEGER,
      journal: fj,
    });
    const t0 = performance.now();
    for (let i = 0; i < cmds.length; i += 10_000) await seqr.submitMany(cmds.slice(i, i + 10_000));
    await seqr.flush();
    const writeMs = performance.now() - t0;
    const tail = seqr.committedSeq;
    rows.push([`journal ${tail} commands into segment files (fdatasync per batch of 10k)`, fmt(writeMs), '']);
    await fj.close();
    await store.query("UPDATE projection_watermark SET seq = $1 WHERE name = 'history'", [tail]);
    await store.close();
    for (let run = 0; run < 3; run++) {
      const w0 = performance.now();
      const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: { ...process.env, BENCH_RESTART_DIR: dir },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1 << 20,
      });
      const wall = performance.now() - w0;
      const r = JSON.parse(out) as { readyMs: number; replayed: number; replayMs: number; lastSeq: number };
      if (r.lastSeq < tail) throw new Error(`restart recovered seq ${r.lastSeq}, journal ends at ${tail}`); // start-up itself journals a command or two (operator client, fee)
      rows.push([
        `whole restart #${run + 1} (spawn to listening; in-process ready at)`,
        `${fmt(wall)} (${fmt(r.readyMs)})`,
        '',
      ]);
      rows.push([`  of which replay of ${r.replayed} journaled commands`, fmt(r.replayMs), '']);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Child of restartSection: starts the real server, prints when it was ready, stops. */
async function restartChild(dir: string): Promise<void> {
  const { startServer } = await import('../src/main.ts');
  const s = await startServer({
    env: {
      DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      TICKBOOK_DEMO: 'false',
      DEMO_LIVE: 'false',
      TICKBOOK_ADMIN_CLIENT_ID: 'bench-admin',
      TICKBOOK_ADMIN_CLIENT_SECRET: 'bench-admin-secret-0123456789abcdefghijklmnopqrstu',
      KEY_ENCRYPTION_SECRET: 'bench',
      // No final snapshot on close: every run replays the whole journal.
      SNAPSHOT_EVERY: '1000000000',
    },
  });
  const readyMs = performance.now(); // ms since this process started
  const rec = s.runtime.recovery;
  process.stdout.write(
    JSON.stringify({ readyMs, replayed: rec.replayed, replayMs: rec.replayMs, lastSeq: rec.lastSeq }),
  );
  process.exit(0); // no clean close: a clean close would write a snapshot
}

const only = process.env.BENCH_ONLY; // 'recovery' | 'catalog' | 'throughput' | 'restart'
const childDir = process.env.BENCH_RECOVER_DIR;
const restartDir = process.env.BENCH_RESTART_DIR;
if (restartDir !== undefined) {
  await restartChild(restartDir);
} else if (childDir !== undefined) {
  await recoverInChild(childDir);
} else {
  if (!only || only === 'restart') await restartSection();
  if (!only || only === 'throughput') await throughputSection();
  if (!only || only === 'catalog') await catalogSection();
  if (!only || only === 'recovery') await recoverySection();
  table();
}
// PostgresStore import keeps the type checker honest about the backend used via openTestStore.
void PostgresStore;
