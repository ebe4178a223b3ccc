// What the HTTP edge needs of the running exchange: the current state to read, a way to submit
// commands through the sequencer (resolved once durable), ids, and the SQL-backed history for
// what no longer lives in memory (closed orders, old fills). The port lives with what implements it
// (exchange-runtime.ts); the HTTP edge consumes it (docs/architecture.md "Layers").

import type { AccountsPort } from '../auth/ports.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type {
  CommandInput,
  CommandResult,
  Currency,
  Fill,
  Id,
  OrderRecord,
  OrderStatus,
} from '../exchange/types.ts';
import { type Settle, settleFrom } from '../journal/sequencer-types.ts';
import type { LedgerKind } from './ledger-kinds.ts';

export type { CommandInput } from '../exchange/types.ts';
export { type Settle, settleFrom } from '../journal/sequencer-types.ts';

export interface HistoryQuery {
  accountId: Id;
  currency?: Currency;
  status?: OrderStatus;
  limit: number;
  offset: number;
}

/** A ledger query (the transactions route): kinds filters when given. */
export interface LedgerQuery {
  accountId: Id;
  currency?: Currency;
  kinds?: readonly LedgerKind[];
  limit: number;
  offset: number;
}

/** One ledger row; amount in Money (signed). createdAt is null on rows older than the ledger
 * refs (docs/http.md, "Transactions"). */
export interface LedgerTransaction {
  id: string;
  kind: LedgerKind;
  amount: number;
  currency: Currency;
  createdAt: number | null;
  orderId: Id | null;
  fillId: string | null;
  marketId: Id | null;
}

export interface ExchangeHistory {
  /** Any order of the account, open or closed, or undefined. */
  order(accountId: Id, orderId: Id): Promise<OrderRecord | undefined>;
  /** Orders of the account, newest first. */
  orders(q: HistoryQuery): Promise<OrderRecord[]>;
  /** Fills of the account, newest first. */
  fills(q: Omit<HistoryQuery, 'status'>): Promise<Fill[]>;
  /** Ledger rows of the account, newest first. */
  transactions(q: LedgerQuery): Promise<LedgerTransaction[]>;
  /** A market's trades (the taker side of each fill, no washes), newest first: public. */
  marketTrades(q: { marketId: Id; currency: Currency; limit: number }): Promise<MarketTrades>;
}

/**
 * A market's trades and how far the history they were read from reaches: it held every command up
 * to journal seq `asOf` (and maybe later ones). A reader that keeps the answer (the trades route's
 * cache) keeps it only when `asOf` covers the state it versions it by: the history may be behind
 * the state, by the commands applied but not yet durable, or past a history read's bounded wait.
 */
export interface MarketTrades {
  fills: Fill[];
  asOf: number;
}

export interface ExchangePort {
  /** The live state; read synchronously, never mutate. */
  reader(): ExchangeReader;
  /**
   * Applies a command through the sequencer; resolves after the journal commit. `seqs`, when
   * given, holds the command's journal seq at index 0 (0 for a rejection) once it resolves.
   */
  submit(cmd: CommandInput, seqs?: number[]): Promise<CommandResult>;
  /**
   * `submit` with the outcome told to `to` instead of a promise (a rejection before this returns):
   * the services answer a placement or a requote from the group commit's callback through it
   * (`settle`). A port whose commands are applied elsewhere (a replica forwards them to its leader)
   * may leave it out.
   */
  submitTo?(cmd: CommandInput, to: Settle<CommandResult>, seqs?: number[]): void;
  /** Several commands, one commit, one result each in order; `seqs` as for submit, one each. */
  submitMany(cmds: CommandInput[], seqs?: number[]): Promise<CommandResult[]>;
  /** A fresh time-ordered id (UUIDv7) for orders, events, markets… */
  newId(): Id;
  history: ExchangeHistory;
}

/** `port.submitTo`, or its submit's promise told to `to` where the port has no submitTo. */
export function submitTo(
  port: ExchangePort,
  cmd: CommandInput,
  to: Settle<CommandResult>,
  seqs?: number[],
): void {
  if (port.submitTo !== undefined) port.submitTo(cmd, to, seqs);
  else settleFrom(port.submit(cmd, seqs), to);
}

/**
 * The token server's accounts over an exchange: every new trader client gets a fresh account,
 * opened by a CreateAccount command like any operator's; the embedded runtime and a cluster
 * process serve it alike.
 */
export function accountsOf(port: ExchangePort): AccountsPort {
  return {
    create: async (): Promise<string> => {
      const accountId = port.newId();
      const r = await port.submit({ type: 'CreateAccount', accountId });
      if (!r.ok) throw new Error(`could not create account: ${r.code} ${r.message}`);
      return accountId;
    },
    exists: (id: string): boolean => port.reader().hasAccount(id),
  };
}
