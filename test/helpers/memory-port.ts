// An ExchangePort over a real in-memory Exchange, for HTTP tests and the read-path benchmark: it
// stamps `ts`, applies commands directly (no journal, no sequencer) and answers history from what
// the engine still holds plus an in-memory log of every order and fill fed from the DomainEvents —
// the same events the real runtime writes to its SQL history. The lead's runtime replaces it in
// production; the routes cannot tell the difference.

import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult, DomainEvent, Fill, Id, OrderRecord } from '../../src/exchange/types.ts';
import { uuidv7 } from '../../src/ids.ts';
import type {
  CommandInput,
  ExchangeHistory,
  ExchangePort,
  HistoryQuery,
  LedgerQuery,
  LedgerTransaction,
} from '../../src/runtime/exchange-port.ts';
import { ledgerRows } from '../../src/runtime/ledger-kinds.ts';

export interface MemoryPortOptions {
  /** Clock stamped on commands; tests pin it. Default Date.now. */
  now?: () => number;
  exchange?: Exchange;
}

export class MemoryPort implements ExchangePort {
  readonly exchange: Exchange;
  private readonly now: () => number;
  /** Latest record of every order ever placed (resting ones are refreshed from the engine on read). */
  private readonly orders = new Map<Id, OrderRecord>();
  private readonly fills = new Map<Id, Fill[]>();
  /** Every ledger row, oldest first (the projector's rows, derived the same way). */
  private readonly ledger: LedgerTransaction[] = [];
  private seq = 0;
  /** Every command applied, in order (tests inspect what the routes submitted). */
  readonly applied: Command[] = [];
  readonly history: ExchangeHistory;

  constructor(opts: MemoryPortOptions = {}) {
    this.exchange = opts.exchange ?? new Exchange();
    this.now = opts.now ?? Date.now;
    this.history = {
      order: async (accountId, orderId) => this.orderOf(accountId, orderId),
      orders: async (q) => this.ordersOf(q),
      fills: async (q) => this.fillsOf(q),
      transactions: async (q) => this.transactionsOf(q),
      marketTrades: async (q) => ({ fills: this.tradesOf(q), asOf: this.exchange.lastSeq }),
    };
  }

  reader(): Exchange {
    return this.exchange;
  }

  newId(): Id {
    return uuidv7();
  }

  /** Synchronous apply, for seeding fixtures. */
  applyNow(input: CommandInput): CommandResult {
    const cmd = { ...input, ts: this.now() } as Command;
    const r = this.exchange.apply(cmd);
    if (r.ok) {
      this.applied.push(cmd);
      this.record(r.events);
      const seq = ++this.seq;
      ledgerRows(r.events, cmd.ts).forEach((row, n) => {
        // id carries the owner until read (transactionsOf strips it)
        this.ledger.push({ ...row, id: `${row.accountId}/${seq}-${n}` });
      });
    }
    return r;
  }

  async submit(cmd: CommandInput): Promise<CommandResult> {
    return this.applyNow(cmd);
  }

  async submitMany(cmds: CommandInput[]): Promise<CommandResult[]> {
    return cmds.map((c) => this.applyNow(c));
  }

  private record(events: readonly DomainEvent[]): void {
    // OrderPlaced carries the taker's state after matching, so only makers' fills change a record.
    const placedNow = new Set<Id>();
    for (const e of events) {
      if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended') {
        placedNow.add(e.order.id);
        this.orders.set(e.order.id, { ...e.order });
      } else if (e.kind === 'OrderCanceled') {
        this.orders.set(e.order.id, { ...e.order, status: 'CANCELED' });
      } else if (e.kind === 'OrderFilled') {
        const f = e.fill;
        const list = this.fills.get(f.accountId);
        if (list) list.push(f);
        else this.fills.set(f.accountId, [f]);
        const o = this.orders.get(f.orderId);
        if (o && !placedNow.has(f.orderId)) {
          o.qty -= f.qty;
          o.updatedAt = f.ts;
          if (o.qty === 0) o.status = 'FILLED';
        }
      }
    }
  }

  private current(o: OrderRecord): OrderRecord {
    return this.exchange.order(o.id) ?? o;
  }

  private orderOf(accountId: Id, orderId: Id): OrderRecord | undefined {
    const o = this.orders.get(orderId);
    return o && o.accountId === accountId ? this.current(o) : undefined;
  }

  private ordersOf(q: HistoryQuery): OrderRecord[] {
    const out: OrderRecord[] = [];
    for (const o of this.orders.values()) {
      if (o.accountId !== q.accountId) continue;
      const c = this.current(o);
      if (q.currency && c.currency !== q.currency) continue;
      if (q.status && c.status !== q.status) continue;
      out.push(c);
    }
    // Newest first; UUIDv7 ids break ties in creation order.
    out.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return out.slice(q.offset, q.offset + q.limit);
  }

  private transactionsOf(q: LedgerQuery): LedgerTransaction[] {
    const all = this.ledger.filter(
      (t) =>
        t.id.startsWith(`${q.accountId}/`) &&
        (!q.currency || t.currency === q.currency) &&
        (!q.kinds || q.kinds.includes(t.kind)),
    );
    return all
      .reverse()
      .slice(q.offset, q.offset + q.limit)
      .map((t) => ({ ...t, id: t.id.slice(t.id.indexOf('/') + 1) }));
  }

  private tradesOf(q: { marketId: Id; currency: string; limit: number }): Fill[] {
    const all = [...this.fills.values()]
      .flat()
      .filter((f) => f.marketId === q.marketId && f.currency === q.currency && f.isTaker && !f.isWash);
    // As the SQL history orders them: newest command first, its last match first.
    const order = (a: Fill, b: Fill) =>
      b.seq - a.seq || b.id.length - a.id.length || (b.id > a.id ? 1 : b.id < a.id ? -1 : 0);
    return all.sort(order).slice(0, q.limit);
  }

  private fillsOf(q: Omit<HistoryQuery, 'status'>): Fill[] {
    const all = (this.fills.get(q.accountId) ?? []).filter((f) => !q.currency || f.currency === q.currency);
    return all.reverse().slice(q.offset, q.offset + q.limit);
  }
}
