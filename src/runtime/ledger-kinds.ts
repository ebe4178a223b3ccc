// The account ledger as clients read it (docs/http.md, "Transactions"): one row per movement of a
// wallet's money. The engine's LedgerEntry events cover deposits, withdrawals, fees, netting and
// settlement; the money a fill moves is implied by its OrderFilled event (price × qty,
// docs/exchange.md "Money"), so the projector derives those rows from the fills of the same command. Together the rows
// of an account sum to its wallet (available + reserved).

import type { Currency, DomainEvent, Id } from '../exchange/types.ts';
import { bidCost } from '../exchange/units.ts';

/** Every kind a ledger row can carry, in the order docs/http.md lists them. */
export const LEDGER_KINDS = [
  'DEPOSIT',
  'WITHDRAWAL',
  'FILL_STRAIGHT_TAKER_FUNDS',
  'FILL_STRAIGHT_MAKER_FUNDS',
  'FILL_STRAIGHT_TAKER_LIVE_FUNDS',
  'FILL_STRAIGHT_MAKER_LIVE_FUNDS',
  'FEE_STRAIGHT_TAKER_LIVE_FUNDS',
  'NETTING',
  'SETTLEMENT',
  'REFUND',
  'FILL_PARLAY_TAKER_FUNDS',
  'FILL_PARLAY_MAKER_FUNDS',
  'FEE_PARLAY_TAKER_FUNDS',
  'SETTLE_PARLAY_TAKER_FUNDS',
  'SETTLE_PARLAY_MAKER_FUNDS',
  'FILL_PARLAY_BOOST_FUNDS',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

const KIND_SET: ReadonlySet<string> = new Set(LEDGER_KINDS);
export const isLedgerKind = (s: string): s is LedgerKind => KIND_SET.has(s);

/** The engine's entry kinds → wire kinds. Only taker orders in live markets pay a fee. */
const ENGINE_KIND: Record<Extract<DomainEvent, { kind: 'LedgerEntry' }>['entryKind'], LedgerKind> = {
  DEPOSIT: 'DEPOSIT',
  WITHDRAWAL: 'WITHDRAWAL',
  FEE: 'FEE_STRAIGHT_TAKER_LIVE_FUNDS',
  NET: 'NETTING',
  SETTLEMENT: 'SETTLEMENT',
  REFUND: 'REFUND',
  // Never emitted by the engine (fills are derived below); kept so a stored row still reads.
  TRADE: 'FILL_STRAIGHT_TAKER_FUNDS',
  // parlays (docs/parlays.md): the engine names them as the wire does
  FILL_PARLAY_TAKER_FUNDS: 'FILL_PARLAY_TAKER_FUNDS',
  FILL_PARLAY_MAKER_FUNDS: 'FILL_PARLAY_MAKER_FUNDS',
  FEE_PARLAY_TAKER_FUNDS: 'FEE_PARLAY_TAKER_FUNDS',
  SETTLE_PARLAY_TAKER_FUNDS: 'SETTLE_PARLAY_TAKER_FUNDS',
  SETTLE_PARLAY_MAKER_FUNDS: 'SETTLE_PARLAY_MAKER_FUNDS',
  FILL_PARLAY_BOOST_FUNDS: 'FILL_PARLAY_BOOST_FUNDS',
};

/** Wire kind of a stored row's kind: rows written before migration 010 hold the engine's names. */
export function wireKind(stored: string): LedgerKind {
  if (isLedgerKind(stored)) return stored;
  return ENGINE_KIND[stored as keyof typeof ENGINE_KIND] ?? 'DEPOSIT';
}

export interface LedgerRowDraft {
  accountId: Id;
  currency: Currency;
  kind: LedgerKind;
  /** Money (signed integer, src/exchange/units.ts). */
  amount: number;
  createdAt: number | null;
  orderId: Id | null;
  fillId: string | null;
  marketId: Id | null;
}

/** Receives one ledger row's fields (ledgerRows builds the row object, the projector its own). */
type RowSink = (
  accountId: Id,
  currency: Currency,
  kind: LedgerKind,
  amount: number,
  createdAt: number | null,
  orderId: Id | null,
  fillId: string | null,
  marketId: Id | null,
) => void;

/**
 * The ledger rows of one accepted command, in event order. `ts` is the command's timestamp (the
 * time the sequencer stamped); without it, the fills' time stands in and otherwise null.
 */
export function ledgerRows(events: readonly DomainEvent[], ts: number | undefined): LedgerRowDraft[] {
  const out: LedgerRowDraft[] = [];
  eachLedgerRow(events, ts, (accountId, currency, kind, amount, createdAt, orderId, fillId, marketId) => {
    out.push({ accountId, currency, kind, amount, createdAt, orderId, fillId, marketId });
  });
  return out;
}

/**
 * The same rows, each handed to `row` field by field, so a caller that stores them with fields of
 * its own (the projector's seq and n) builds one object per row instead of a draft and its copy: a
 * market settlement that many parlays share makes one or two rows per parlay.
 */
export function eachLedgerRow(events: readonly DomainEvent[], ts: number | undefined, row: RowSink): void {
  // Liveness is not on the fill itself: a taker fill in a live market carries the live fee
  // coefficient, and every fill of one command happens in the same market at the same moment.
  let live = false;
  let fillTs: number | undefined;
  let fillMarket: Id | null = null;
  for (const e of events) {
    if (e.kind !== 'OrderFilled') continue;
    fillTs ??= e.fill.ts;
    fillMarket ??= e.fill.marketId;
    if (e.fill.isTaker && e.fill.feeCoefficient > 0) live = true;
  }
  const at = ts ?? fillTs ?? null;
  for (const e of events) {
    if (e.kind === 'OrderFilled') {
      const f = e.fill;
      if (f.isWash) continue; // self-trade prevention moves no money (docs/exchange.md "Books and matching")
      const role = f.isTaker ? 'TAKER' : 'MAKER';
      row(
        f.accountId,
        f.currency,
        `FILL_STRAIGHT_${role}_${live ? 'LIVE_' : ''}FUNDS` as LedgerKind,
        -bidCost(f.price, f.qty, f.currency),
        at ?? f.ts,
        f.orderId,
        f.id,
        f.marketId,
      );
    } else if (e.kind === 'LedgerEntry') {
      const parlayKind = e.entryKind.includes('PARLAY');
      const byMarket = e.entryKind === 'NET' || e.entryKind === 'SETTLEMENT' || e.entryKind === 'REFUND';
      row(
        e.accountId,
        e.currency,
        ENGINE_KIND[e.entryKind],
        e.amount,
        at,
        // a parlay's rows carry its id where a straight fill's carry the order id
        e.entryKind === 'FEE' || parlayKind ? e.ref : null,
        null,
        byMarket ? e.ref : e.entryKind === 'FEE' ? fillMarket : null,
      );
    }
  }
}
