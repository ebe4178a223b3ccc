// The SQL history read model ("history beyond memory lives in SQL tables written
// from the journal's events"). A run of durable commands yields DomainEvents; the rows they imply
// are gathered here and written by the history projector (projector.ts) after the journal made
// them durable, in one statement with the projector's watermark (history-write.ts; docs/journal.md,
// "Projector").

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, DomainEvent, Fill, Id, OrderRecord, OrderStatus } from '../exchange/types.ts';
import type { Queryable } from '../store/types.ts';
import type {
  ExchangeHistory,
  HistoryQuery,
  LedgerQuery,
  LedgerTransaction,
  MarketTrades,
} from './exchange-port.ts';
import { eachLedgerRow, type LedgerRowDraft, wireKind } from './ledger-kinds.ts';

interface LedgerRow extends LedgerRowDraft {
  seq: number;
  n: number;
}

/** Rows gathered from the events of one group commit. */
export class HistoryBatch {
  /**
   * Latest version of each order placed, amended or cancelled in the batch. `placed`: its
   * OrderPlaced is in this batch, so no earlier projection wrote its row (a plain insert); any
   * other is a row written before (an upsert, history-write.ts).
   */
  readonly orders = new Map<Id, { order: OrderRecord; seq: number; own: boolean; placed: boolean }>();
  /**
   * Maker fills on orders placed in an earlier batch: the engine reports them only as fills, so
   * the row's remaining qty is reduced by the filled payout (and the order FILLED at zero).
   */
  readonly makerDeltas = new Map<Id, { qty: number; ts: number; seq: number }>();
  readonly fills: Fill[] = [];
  readonly ledger: LedgerRow[] = [];

  get empty(): boolean {
    return this.orders.size === 0 && this.fills.length === 0 && this.ledger.length === 0;
  }

  /** `ts`: the command's timestamp, for the ledger rows' createdAt. */
  add(seq: number, events: readonly DomainEvent[], ts?: number): void {
    let n = 0;
    const ledger = this.ledger;
    eachLedgerRow(events, ts, (accountId, currency, kind, amount, createdAt, orderId, fillId, marketId) => {
      ledger.push({ accountId, currency, kind, amount, createdAt, orderId, fillId, marketId, seq, n: n++ });
    });
    for (const e of events) {
      switch (e.kind) {
        // OrderPlaced carries the taker's state after its own matching (OrderAmended too: an
        // amend's new price and originalQty); OrderCanceled the final state. Either supersedes any earlier delta for that order.
        case 'OrderPlaced':
        case 'OrderAmended':
        case 'OrderCanceled': {
          // The event's record itself (events are never changed once made); copied only if a
          // maker fill later in the batch changes it (`own`).
          const placed = e.kind === 'OrderPlaced' || this.orders.get(e.order.id)?.placed === true;
          this.orders.set(e.order.id, { order: e.order, seq, own: false, placed });
          this.makerDeltas.delete(e.order.id);
          break;
        }
        case 'OrderFilled': {
          const f = e.fill;
          this.fills.push(f);
          // Taker fills are already reflected in OrderPlaced; a wash moves nothing (the maker's
          // cancellation arrives as OrderCanceled).
          if (f.isTaker || f.isWash) break;
          const known = this.orders.get(f.orderId);
          if (known) {
            if (!known.own) {
              known.order = { ...known.order };
              known.own = true;
            }
            known.order.qty -= f.qty;
            known.order.updatedAt = f.ts;
            if (known.order.qty <= 0) known.order.status = 'FILLED';
            known.seq = seq;
          } else {
            const d = this.makerDeltas.get(f.orderId);
            if (d) {
              d.qty += f.qty;
              d.ts = f.ts;
              d.seq = seq;
            } else this.makerDeltas.set(f.orderId, { qty: f.qty, ts: f.ts, seq });
          }
          break;
        }
        default:
          break;
      }
    }
  }
}

interface OrderRow {
  id: string;
  account_id: string;
  outcome_id: string;
  market_id: string;
  currency: Currency;
  price: number;
  qty: number | string;
  original_qty: number | string;
  tif: OrderRecord['tif'];
  expires_at: number | string | null;
  flags: string | null;
  client_order_id: string | null;
  status: OrderStatus;
  created_at: number | string;
  updated_at: number | string;
}

interface FillRow {
  id: string;
  seq: number | string;
  account_id: string;
  order_id: string;
  outcome_id: string;
  market_id: string;
  currency: Currency;
  price: number;
  qty: number | string;
  is_taker: boolean;
  is_wash: boolean;
  fee: number | string;
  fee_coefficient: number;
  ts: number | string;
}

interface LedgerHistoryRow {
  seq: number | string;
  n: number;
  currency: Currency;
  kind: string;
  amount: number | string;
  ref: string | null;
  created_at: number | string | null;
  order_id: string | null;
  fill_id: string | null;
  market_id: string | null;
}

const n = (v: number | string): number => (typeof v === 'number' ? v : Number(v));

function toOrder(r: OrderRow): OrderRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    outcomeId: r.outcome_id,
    marketId: r.market_id,
    currency: r.currency,
    price: r.price,
    qty: n(r.qty),
    originalQty: n(r.original_qty),
    tif: r.tif,
    expiresAt: r.expires_at === null ? null : n(r.expires_at),
    flags: r.flags,
    clientOrderId: r.client_order_id,
    status: r.status,
    createdAt: n(r.created_at),
    updatedAt: n(r.updated_at),
  };
}

function toFill(r: FillRow): Fill {
  return {
    id: r.id,
    seq: n(r.seq),
    accountId: r.account_id,
    orderId: r.order_id,
    outcomeId: r.outcome_id,
    marketId: r.market_id,
    currency: r.currency,
    price: r.price,
    qty: n(r.qty),
    isTaker: r.is_taker,
    isWash: r.is_wash,
    fee: n(r.fee),
    feeCoefficient: r.fee_coefficient,
    ts: n(r.ts),
  };
}

/** ExchangeHistory over the SQL tables; resting orders answer from memory (always current). */
/** The WHERE clause and parameters every history query starts from: the account, its currency. */
function accountFilter(q: { accountId: Id; currency?: string | undefined }): {
  params: unknown[];
  where: string;
} {
  const params: unknown[] = [q.accountId];
  let where = 'account_id = $1';
  if (q.currency) {
    params.push(q.currency);
    where += ` AND currency = $${params.length}`;
  }
  return { params, where };
}

export class SqlHistory implements ExchangeHistory {
  constructor(
    private readonly db: Queryable,
    private readonly reader: () => ExchangeReader,
    /** Resolves once history holds every acknowledged command (the projector's read barrier). */
    private readonly barrier: () => Promise<void> = async () => {},
  ) {}

  async order(accountId: Id, orderId: Id): Promise<OrderRecord | undefined> {
    const live = this.reader().order(orderId);
    if (live) return live.accountId === accountId ? live : undefined;
    await this.barrier();
    const r = await this.db.query<OrderRow>('SELECT * FROM order_history WHERE id = $1 AND account_id = $2', [
      orderId,
      accountId,
    ]);
    return r.rows[0] ? toOrder(r.rows[0]) : undefined;
  }

  async orders(q: HistoryQuery): Promise<OrderRecord[]> {
    await this.barrier();
    const f = accountFilter(q);
    const params = f.params;
    let where = f.where;
    if (q.status) {
      params.push(q.status);
      where += ` AND status = $${params.length}`;
    }
    params.push(q.limit, q.offset);
    const r = await this.db.query<OrderRow>(
      `SELECT * FROM order_history WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    // Resting orders may have been partly filled since their row was written in an earlier
    // batch; the in-memory record is the current one.
    const reader = this.reader();
    return r.rows.map((row) => reader.order(row.id) ?? toOrder(row));
  }

  async fills(q: Omit<HistoryQuery, 'status'>): Promise<Fill[]> {
    await this.barrier();
    const { params, where } = accountFilter(q);
    params.push(q.limit, q.offset);
    const r = await this.db.query<FillRow>(
      `SELECT * FROM fill_history WHERE ${where} ORDER BY seq DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return r.rows.map(toFill);
  }

  async marketTrades(q: { marketId: Id; currency: Currency; limit: number }): Promise<MarketTrades> {
    await this.barrier();
    // The watermark before the rows: the projector moves it in the statement that writes a batch's
    // rows, so the rows read next hold at least every command up to it.
    const w = await this.db.query<{ seq: number | string }>(
      "SELECT seq FROM projection_watermark WHERE name = 'history'",
    );
    const asOf = Number(w.rows[0]?.seq ?? 0);
    const r = await this.db.query<FillRow>(
      // Within one command the taker's fills are `<order>:1:t`, `<order>:2:t`… in match order, so
      // (length, id) descending is the last match first, also past nine.
      `SELECT * FROM fill_history WHERE market_id = $1 AND currency = $2 AND is_taker AND NOT is_wash
       ORDER BY seq DESC, length(id) DESC, id DESC LIMIT $3`,
      [q.marketId, q.currency, q.limit],
    );
    return { fills: r.rows.map(toFill), asOf };
  }

  async transactions(q: LedgerQuery): Promise<LedgerTransaction[]> {
    await this.barrier();
    const f = accountFilter(q);
    const params = f.params;
    let where = f.where;
    if (q.kinds) {
      // Rows projected before migration 010 hold the engine's kind names (docs/http.md).
      params.push(
        q.kinds.flatMap((k) =>
          k === 'FEE_STRAIGHT_TAKER_LIVE_FUNDS' ? [k, 'FEE'] : k === 'NETTING' ? [k, 'NET'] : [k],
        ),
      );
      where += ` AND kind = ANY($${params.length}::text[])`;
    }
    params.push(q.limit, q.offset);
    const r = await this.db.query<LedgerHistoryRow>(
      `SELECT seq, n, currency, kind, amount, ref, created_at, order_id, fill_id, market_id FROM ledger_history
       WHERE ${where} ORDER BY seq DESC, n DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return r.rows.map((row) => {
      const legacy = row.created_at === null;
      const kind = wireKind(row.kind);
      const isMarketRef = kind === 'NETTING' || kind === 'SETTLEMENT' || kind === 'REFUND';
      return {
        id: `${n(row.seq)}-${row.n}`,
        kind,
        amount: n(row.amount),
        currency: row.currency,
        createdAt: legacy ? null : n(row.created_at as number | string),
        orderId: legacy ? (kind === 'FEE_STRAIGHT_TAKER_LIVE_FUNDS' ? row.ref : null) : row.order_id,
        fillId: row.fill_id,
        marketId: legacy ? (isMarketRef ? row.ref : null) : row.market_id,
      };
    });
  }
}
