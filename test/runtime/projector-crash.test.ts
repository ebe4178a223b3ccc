// The history projector (docs/journal.md, "Projector"): a process killed with SIGKILL between
// journal syncs and their projection restarts with history tables equal to a projection of the
// whole journal from scratch, and the acknowledged commands are all in it.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { recover } from '../../src/journal/recover.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { HistoryProjector, readWatermark } from '../../src/runtime/projector.ts';
import { PgliteStore, type PgliteThread } from '../../src/store/pglite-store.ts';
import type { Queryable } from '../../src/store/types.ts';
import { pgliteTemplate } from '../helpers/store.ts';

const childScript = fileURLToPath(new URL('./projector-child.ts', import.meta.url));
const quiet = { info() {}, warn() {}, error() {} };

async function dump(q: Queryable) {
  const orders = await q.query('SELECT * FROM order_history ORDER BY id');
  const fills = await q.query('SELECT * FROM fill_history ORDER BY id');
  const ledger = await q.query('SELECT * FROM ledger_history ORDER BY seq, n');
  return { orders: orders.rows, fills: fills.rows, ledger: ledger.rows };
}

/** Runs the child until it acknowledged `acks` lines, then SIGKILLs it; the last acked seq. */
function runAndKill(
  pgDir: string,
  journalDir: string,
  allowTx: number,
  acks: number,
  thread: PgliteThread,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', childScript, pgDir, journalDir, String(allowTx), thread],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let seen = 0;
    let last = 0;
    let buf = '';
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const l of lines) {
        const m = /^acked (\d+)$/.exec(l);
        if (m) {
          last = Number(m[1]);
          if (++seen === acks) child.kill('SIGKILL');
        }
      }
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(last);
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

for (const thread of ['main', 'worker'] as const)
  test(`kill -9 between journal sync and projection (SQL thread ${thread}): after restart history equals a projection from scratch`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'tickbook-projector-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    const template = await pgliteTemplate();
    const pgDir = join(root, 'pg');
    const journalDir = join(root, 'journal');
    cpSync(template, pgDir, { recursive: true });

    // First run: the projector writes 3 transactions, then every later one hangs.
    const lastAcked = await runAndKill(pgDir, journalDir, 3, 40, thread);
    assert.ok(lastAcked > 100, `acked up to ${lastAcked}`);
    let crashedAt: number;
    {
      const s = await PgliteStore.open(pgDir);
      crashedAt = await readWatermark(s);
      const unprojected = await s.query('SELECT 1 FROM order_history WHERE seq > $1', [crashedAt]);
      await s.close();
      assert.ok(
        crashedAt > 0 && crashedAt < lastAcked,
        `history at ${crashedAt} lags the acknowledged ${lastAcked}`,
      );
      assert.equal(unprojected.rows.length, 0);
    }

    // Restart: recovery replays from a snapshot no newer than the watermark and projects the rest.
    const store = await PgliteStore.open(pgDir, { thread });
    const journal = await FileJournal.open(journalDir);
    const tail = (await journal.tail()).seq;
    assert.ok(tail >= lastAcked);
    const config = loadConfig({ DATA_DIR: root, LOG_LEVEL: 'silent' });
    const rt = await ExchangeRuntime.open({ config, store, log: quiet, journal });
    assert.ok(rt.recovery.projectedOnStart > 0);
    assert.equal(rt.projector.watermark, tail);
    assert.equal(await readWatermark(store), tail);
    const repaired = await dump(store);
    // The orders acknowledged after the crash-time watermark are in the history now.
    assert.ok(repaired.orders.some((o) => Number((o as { seq: string | number }).seq) > crashedAt));
    await rt.close();
    await store.close();

    // From scratch: the whole journal replayed into an empty history.
    const freshDir = join(root, 'fresh');
    cpSync(template, freshDir, { recursive: true });
    const fresh = await PgliteStore.open(freshDir);
    const j2 = await FileJournal.open(journalDir);
    const projector = await HistoryProjector.open(fresh);
    await recover<Command, CommandResult, Exchange>(fresh, () => new Exchange(), {
      journal: j2,
      fromScratch: true,
      toSeq: tail,
      onReplay: (seq, c, r) => projector.enqueue(seq, [r], [c.ts]),
    });
    await projector.drain();
    const scratch = await dump(fresh);
    await fresh.close();
    await j2.close();

    assert.ok(scratch.orders.length > 0 && scratch.fills.length > 0 && scratch.ledger.length > 0);
    assert.deepEqual(repaired, scratch);
  });
