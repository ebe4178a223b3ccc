// Child process of the crash harness (crash-harness.ts). Opens the PGlite data directory given as
// argv[2], recovers the real Exchange from its journal, prints
//   ready <lastSeq> <hash> <snapshotSeq> <replayed>
// then submits trading commands from 16 concurrent submitters forever, printing
//   ack <seq> <identity>
// for each command only after the sequencer acknowledged it (= durable). The parent SIGKILLs it
// at a random moment. argv[3] is the run number (makes order ids unique across runs).
// With argv[4] === 'verify' it prints the recovered state and exits instead:
//   verify <lastSeq> <hash from snapshot+tail> <hash from journal only> <snapshotSeq>

import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult, StateMachine } from '../../src/exchange/types.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { recover } from '../../src/journal/recover.ts';
import { Sequencer } from '../../src/journal/sequencer.ts';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import { type Cmd, setupCommands, tradingCommands } from './workload.ts';

/** The segment journal beside the PGlite data directory (docs/journal.md, as the server does). */
export const journalDirOf = (dataDir: string): string => `${dataDir}.journal`;

export const CRASH_SHAPE = { events: 3, marketsPerEvent: 3, accounts: 20 };

/** What the parent compares between the ack line and the journal row. */
export function identity(cmd: Cmd | Command): string {
  switch (cmd.type) {
    case 'PlaceOrder':
    case 'CancelOrder':
      return `${cmd.type}:${cmd.orderId}`;
    case 'CreateAccount':
    case 'Deposit':
      return `${cmd.type}:${cmd.accountId}`;
    default:
      return cmd.type;
  }
}

const accepted = (r: CommandResult) => r.ok;

async function main(): Promise<void> {
  const dataDir = process.argv[2]!;
  const run = Number(process.argv[3] ?? '0');
  const mode = process.argv[4] ?? 'run';
  const store = await PgliteStore.open(dataDir);
  await store.migrate();
  const journal = await FileJournal.open(journalDirOf(dataDir));
  const rec = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
    isAccepted: accepted,
    journal,
  });
  if (mode === 'verify') {
    const scratch = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
      isAccepted: accepted,
      fromScratch: true,
      journal,
    });
    process.stdout.write(
      `verify ${rec.lastSeq} ${rec.machine.hash()} ${scratch.machine.hash()} ${rec.snapshotSeq} ${scratch.replayed}\n`,
    );
    await store.close();
    return;
  }
  // The seq each accepted command got, recorded when the engine applies it: a command submitted
  // while a snapshot is being serialized is applied later than its submit (docs/journal.md,
  // "Snapshots: serialized in slices"), so appliedSeq at submit time does not tell its seq.
  const seqsOf = new Map<string, number[]>();
  const live = rec.machine;
  const machine: StateMachine<Command, CommandResult> & { lastSeq: number } = {
    apply(c) {
      const r = live.apply(c);
      if (r.ok) {
        const k = identity(c);
        const q = seqsOf.get(k);
        if (q === undefined) seqsOf.set(k, [live.lastSeq]);
        else q.push(live.lastSeq);
      }
      return r;
    },
    hash: () => live.hash(),
    snapshot: () => live.snapshot(),
    snapshotSlices: () => live.snapshotSlices(),
    restore: (b) => live.restore(b),
    get lastSeq() {
      return live.lastSeq;
    },
  };
  const seqr = new Sequencer<Command, CommandResult>(machine, accepted, store, Date.now, {
    lastSeq: rec.lastSeq,
    lastTs: rec.lastTs,
    lastSnapshotSeq: rec.snapshotSeq,
    snapshotEvery: 400,
    journal,
  });
  seqr.on('fatal', (err) => {
    process.stderr.write(`fatal ${String(err)}\n`);
    process.exit(3);
  });
  process.stdout.write(`ready ${rec.lastSeq} ${rec.machine.hash()} ${rec.snapshotSeq} ${rec.replayed}\n`);

  if (rec.lastSeq === 0) {
    const setup = setupCommands(CRASH_SHAPE);
    const results = await seqr.submitMany(setup);
    let seq = 0;
    const lines: string[] = [];
    results.forEach((r, i) => {
      if (r.ok) lines.push(`ack ${++seq} ${identity(setup[i]!)}`);
    });
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  const gen = tradingCommands(CRASH_SHAPE, run);
  const submitter = async () => {
    for (;;) {
      const cmd = gen.next().value as Cmd;
      const r = await seqr.submit(cmd);
      // Commands of one identity are applied and acknowledged in seq order: the oldest is ours.
      if (r.ok) process.stdout.write(`ack ${seqsOf.get(identity(cmd))?.shift()} ${identity(cmd)}\n`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, submitter));
}

if (process.argv[1]?.endsWith('crash-child.ts')) {
  main().catch((err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(2);
  });
}
