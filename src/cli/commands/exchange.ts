// Exchange commands of the CLI.
//   Offline, on the store itself (the server must not be running; the writer lock enforces it):
//     seed            the demo slate and its liquidity
//     import FILE     a JSON schedule (docs/import-format.md), with a report of every rejected row
//   Through a running server's admin API (--url, operator credentials):
//     events status, markets status, markets settle, locks set|clear|list, accounts deposit|withdraw

import { readFileSync } from 'node:fs';
import { parseSchedule } from '../../catalog/import.ts';
import { fenceOutLeader } from '../../cluster/leader-row.ts';
import { catalogEmpty, seedDemo } from '../../demo/driver.ts';
import { openJournal } from '../../journal/open-journal.ts';
import { ExchangeRuntime } from '../../runtime/exchange-runtime.ts';
import { WriterLockError } from '../../store/types.ts';
import { adminApi as api, positionals, urlOption } from '../admin-api.ts';
import { printResult, table } from '../output.ts';
import { type CliContext, CliError, type Command, type CommandArgs, type OptionSpec } from '../types.ts';

const quietLog = { info() {}, warn() {}, error() {} };

/** Opens the exchange on the store for an offline command, holding the writer lock. */
async function withRuntime<T>(ctx: CliContext, fn: (rt: ExchangeRuntime) => Promise<T>): Promise<T> {
  const store = await ctx.openStore();
  let release: () => Promise<void>;
  try {
    release = (await store.acquireWriterLock?.()) ?? (async () => {});
  } catch (err) {
    if (err instanceof WriterLockError) throw new CliError(`${err.message}; stop the server first`);
    throw err;
  }
  try {
    // On PostgreSQL the lock alone does not fence out a leader whose lock session died unnoticed:
    // bump the epoch as a promotion does, so its commits fail before ours (docs/cluster.md).
    if (store.kind === 'postgres') await fenceOutLeader(store, `cli-${process.pid}`);
    const config = ctx.config();
    const journal = await openJournal(config, store);
    const rt = await ExchangeRuntime.open({ config, store, log: quietLog, journal });
    try {
      return await fn(rt);
    } finally {
      await rt.close();
    }
  } finally {
    await release();
  }
}

function progress(ctx: CliContext, label: string): (done: number, total: number) => void {
  let last = -1;
  return (done, total) => {
    const pct = Math.floor((100 * done) / total);
    if (!ctx.json && (pct >= last + 10 || done === total)) {
      last = pct;
      ctx.err(`${label}: ${done}/${total} (${pct}%)`);
    }
  };
}

export const seed: Command = {
  name: 'seed',
  summary: 'Create the demo slate and its market-maker liquidity in the store (server stopped)',
  usage: '[--force]',
  options: { force: { type: 'boolean', default: false } },
  async run(args, ctx) {
    return withRuntime(ctx, async (rt) => {
      if (!catalogEmpty(rt) && args.values.force !== true) {
        throw new CliError('the store already holds a catalog; --force adds the demo slate anyway');
      }
      const n = await seedDemo(rt, {
        seed: ctx.config().demoSeed,
        now: rt.clock(),
        log: quietLog,
        onProgress: progress(ctx, 'seed'),
      });
      const r = rt.reader();
      const result = { commands: n, events: r.eventsSorted().length, leagues: r.leagues().length };
      printResult(
        ctx,
        result,
        () => `seeded ${result.events} events in ${result.leagues} leagues (${n} commands)`,
      );
      return 0;
    });
  },
};

export const importCmd: Command = {
  name: 'import',
  summary: 'Import a JSON schedule of leagues, teams and events (docs/import-format.md; server stopped)',
  usage: 'FILE.json [--dry-run]',
  options: { 'dry-run': { type: 'boolean', default: false } },
  async run(args, ctx) {
    const [file] = positionals(args, 1, 'import FILE.json [--dry-run]');
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file!, 'utf8'));
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
    }
    return withRuntime(ctx, async (rt) => {
      const parsed = parseSchedule(json, rt.reader());
      const rejected: { row: number | string; path: string; message: string }[] = parsed.errors.map((e) => ({
        row: e.row,
        path: e.path,
        message: e.message,
      }));
      let applied = 0;
      if (args.values['dry-run'] !== true) {
        const chunk = 500;
        const report = progress(ctx, 'import');
        for (let i = 0; i < parsed.commands.length; i += chunk) {
          const part = parsed.commands.slice(i, i + chunk);
          const rs = await rt.submitMany(part);
          rs.forEach((r, j) => {
            if (r.ok) applied++;
            else
              rejected.push({
                row: `command ${i + j + 1} (${part[j]!.type})`,
                path: '',
                message: `${r.code}: ${r.message}`,
              });
          });
          report(Math.min(i + chunk, parsed.commands.length), parsed.commands.length);
        }
      }
      const result = { commands: parsed.commands.length, applied, rejected };
      printResult(ctx, result, () =>
        [
          `${args.values['dry-run'] ? 'would apply' : 'applied'} ${args.values['dry-run'] ? parsed.commands.length : applied} commands`,
          ...(rejected.length > 0
            ? [
                `${rejected.length} rejected:`,
                ...rejected.map((e) => `  row ${e.row}${e.path ? ` ${e.path}` : ''}: ${e.message}`),
              ]
            : []),
        ].join('\n'),
      );
      return rejected.length > 0 ? 1 : 0;
    });
  },
};

/** An id as one path segment of a request. */
const enc = (id: string | undefined): string => encodeURIComponent(id!);

/** A command that makes one admin API request from its positional arguments (raw, as typed). */
export function adminCommand<T>(
  name: string,
  summary: string,
  usage: string,
  n: number,
  request: (p: string[], args: CommandArgs) => { method: string; path: string; body?: unknown },
  /** The default output: a short line or a table; --json prints the whole answer. */
  human: (result: T, p: string[]) => string,
  options: OptionSpec = {},
): Command {
  return {
    name,
    summary,
    usage: `${usage} [--url URL]`,
    options: { ...urlOption, ...options },
    async run(args, ctx) {
      const p = positionals(args, n, `${name} ${usage}`);
      const { method, path, body } = request(p, args);
      const result = await api(args, ctx).call<T | undefined>(method, path, body);
      // A 204 has no body: --json still prints an object saying what was done.
      const value = result === undefined || result === '' ? { ok: true, method, path } : result;
      printResult(ctx, value, () => human(result as T, p));
      return 0;
    },
  };
}

interface WireEventStatus {
  id: string;
  description?: string;
  status: string;
}

interface WireMarketStatus {
  id: string;
  description?: string;
  status: string;
  outcomes?: { id: string; description?: string; result?: string | null }[];
}

interface WireLock {
  id: string;
  eventId: string | null;
  reason: string;
  createdAt: string;
  minuteDuration: number | null;
  expiresAt: string | null;
}

interface WireWallet {
  accountId: string;
  currency: string;
  balance: number;
  reserved: number;
}

export const eventsStatus = adminCommand<WireEventStatus>(
  'events status',
  'Set an event status (INITIAL, OPEN_PREGAME, CLOSED_PREGAME, OPEN_INGAME, DELAYED, FINAL, CANCELED)',
  '<eventId> <STATUS>',
  2,
  ([id, status]) => ({
    method: 'POST',
    path: `/admin/v1/events/${enc(id)}/status`,
    body: { status },
  }),
  (e) => `${e.id}: ${e.status}${e.description ? ` (${e.description})` : ''}`,
);

export const marketsStatus = adminCommand<WireMarketStatus>(
  'markets status',
  'Open or close a market (OPEN, CLOSED)',
  '<marketId> <OPEN|CLOSED>',
  2,
  ([id, status]) => ({
    method: 'POST',
    path: `/admin/v1/markets/${enc(id)}/status`,
    body: { status },
  }),
  (m) => `${m.id}: ${m.status}${m.description ? ` (${m.description})` : ''}`,
);

export const marketsSettle = adminCommand<WireMarketStatus>(
  'markets settle',
  'Settle a closed market: the winning outcome id, or PUSH to void it',
  '<marketId> <winningOutcomeId|PUSH>',
  2,
  ([id, result]) => ({
    method: 'POST',
    path: `/admin/v1/markets/${enc(id)}/settle`,
    body: result === 'PUSH' ? { result: 'PUSH' } : { winningOutcomeId: result },
  }),
  (m, [, result]) =>
    `${m.id}: ${m.status}, ${result === 'PUSH' ? 'pushed (costs refunded)' : `won by ${result}`}`,
);

export const locksSet = adminCommand<WireLock>(
  'locks set',
  'Set a trading lock: the system lock, or one event with --event; prints the lock id',
  '--reason TEXT [--event ID] [--minutes N]',
  0,
  (_p, args) => ({
    method: 'POST',
    path: '/admin/v1/locks',
    body: {
      reason: String(args.values.reason ?? ''),
      ...(typeof args.values.event === 'string' ? { eventId: args.values.event } : {}),
      ...(typeof args.values.minutes === 'string' ? { minuteDuration: Number(args.values.minutes) } : {}),
    },
  }),
  // The id alone, so that LOCK=$(tickbook locks set …) works.
  (lock) => lock.id,
  { reason: { type: 'string' }, event: { type: 'string' }, minutes: { type: 'string' } },
);

export const locksClear = adminCommand<undefined>(
  'locks clear',
  'Clear a trading lock',
  '<lockId>',
  1,
  ([id]) => ({
    method: 'DELETE',
    path: `/admin/v1/locks/${enc(id)}`,
  }),
  (_r, [id]) => `cleared lock ${id}`,
);

export const locksList = adminCommand<WireLock[]>(
  'locks list',
  'Show the active trading locks with their ids',
  '',
  0,
  () => ({
    method: 'GET',
    path: '/admin/v1/locks',
  }),
  (locks) =>
    locks.length === 0
      ? 'no active trading locks'
      : table(
          locks.map((l) => ({ ...l, eventId: l.eventId ?? '(system)' })) as unknown as Record<
            string,
            unknown
          >[],
          ['id', 'eventId', 'reason', 'createdAt', 'expiresAt'],
        ),
);

function moneyCommand(kind: 'deposit' | 'withdraw'): Command {
  return adminCommand<WireWallet>(
    `accounts ${kind}`,
    `${kind === 'deposit' ? 'Deposit into' : 'Withdraw from'} an account (amount in currency units)`,
    '<accountId> <CASH|COIN> <amount>',
    3,
    ([id, currency, amount]) => ({
      method: 'POST',
      path: `/admin/v1/accounts/${enc(id)}/${kind === 'deposit' ? 'deposits' : 'withdrawals'}`,
      body: { currency, amount: Number(amount) },
    }),
    (w, [, , amount]) =>
      `${kind === 'deposit' ? 'deposited' : 'withdrew'} ${amount} ${w.currency}: ${w.accountId} balance ${w.balance}, reserved ${w.reserved}`,
  );
}

export const accountsDeposit = moneyCommand('deposit');
export const accountsWithdraw = moneyCommand('withdraw');
