// Order entry (docs/architecture.md "The command path"): a placement request becomes a PlaceOrder
// command, a repeated clientOrderId answers the first placement (idempotency), a batch is applied in
// order in one commit, and the outcome of a placement is read from its own events. The HTTP route
// (src/http/routes/orders.ts) validates the body against its schema, calls this service and writes
// the wire; errors are ApiErrors of the one registry (docs/http.md "Validation and errors"), so the route maps nothing.
// Unlike the production service, answers are synchronous and final: a placement resolves once its
// command is durable.

import { ApiError } from '../errors.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandResult, DomainEvent, Fill, Id, OrderRecord } from '../exchange/types.ts';
import { type ExchangePort, type Settle, settleFrom, submitTo } from './exchange-port.ts';
import { type PlaceCommand, type PlaceRequest, placeCommand } from './place-command.ts';

export { MAX_TTL_MS, type PlaceRequest, placeCommand } from './place-command.ts';

/**
 * The order as a placement left it, with the fills it produced; `replayed` for a repeated key.
 * `seq`: the journal seq of the command that placed it, null for a replayed answer (its command
 * was an earlier request's).
 */
export interface Placement {
  order: OrderRecord;
  fills: Fill[];
  replayed: boolean;
  seq: number | null;
}

/** Orders a cancel took off the book (in the engine's order) and its command's seq (null: none). */
export interface Cancelled {
  orders: OrderRecord[];
  seq: number | null;
}

/** What a cancel by scope covers: every order of the account, or those of one event or market. */
export type CancelScope = 'all' | 'event' | 'market';

/** Production clients send up to 256 orders per batch. */
export const MAX_BATCH = 256;

/**
 * The order as this placement left it, from the command's own events (not from the live state,
 * which later commands may already have moved): fills of this order, a cancel of its remainder
 * (IOC, wash), else resting or filled.
 */
export function placementOutcome(orderId: Id, events: DomainEvent[]): { order: OrderRecord; fills: Fill[] } {
  let placed: OrderRecord | undefined;
  let canceled: OrderRecord | undefined;
  const fills: Fill[] = [];
  for (const ev of events) {
    if (ev.kind === 'OrderPlaced' && ev.order.id === orderId) placed = ev.order;
    else if (ev.kind === 'OrderFilled' && ev.fill.orderId === orderId) fills.push(ev.fill);
    else if (ev.kind === 'OrderCanceled' && ev.order.id === orderId) canceled = ev.order;
  }
  const base = canceled ?? placed;
  if (!base) throw new ApiError('INTERNAL_ERROR', 'placement produced no order');
  const filled = fills.reduce((s, f) => s + f.qty, 0);
  if (canceled) return { order: { ...canceled, status: 'CANCELED' }, fills };
  const remaining = base.originalQty - filled;
  return {
    order: { ...base, qty: remaining, status: remaining === 0 ? 'FILLED' : 'RESTING' },
    fills,
  };
}

/** Two placements under one key in one batch: the same terms (not stp, reprice, mmp, flags or ttl). */
function sameTerms(a: PlaceCommand, b: PlaceCommand): boolean {
  return (
    a.outcomeId === b.outcomeId &&
    a.price === b.price &&
    a.qty === b.qty &&
    a.currency === b.currency &&
    a.tif === b.tif
  );
}

/**
 * Whether `cmd` repeats the placement that made order `o` under its key: the order's outcome,
 * currency and tif (no change touches them), and the price and qty it was placed with, which the
 * engine records when an amend, a mass quote or a post-only reprice leaves the order showing others
 * (`reader.placedTerms`, docs/exchange.md "Placed terms"), else the order's own.
 */
function repeats(
  r: ExchangeReader,
  accountId: Id,
  clientOrderId: string,
  o: OrderRecord,
  cmd: PlaceCommand,
): boolean {
  const placed = r.placedTerms(accountId, clientOrderId);
  return (
    o.outcomeId === cmd.outcomeId &&
    o.currency === cmd.currency &&
    o.tif === cmd.tif &&
    (placed?.price ?? o.price) === cmd.price &&
    (placed?.qty ?? o.originalQty) === cmd.qty
  );
}

/** A rejection of the engine as the registry's error (the route's mapping, injected). */
export type RejectionToError = (r: {
  ok: false;
  code: string;
  message: string;
  details?: unknown;
}) => ApiError;

export class OrderEntry {
  constructor(
    private readonly port: ExchangePort,
    private readonly rejectionError: RejectionToError,
  ) {}

  /** An order of this account, live first (fresher), then history; undefined for anyone else's. */
  async findOrder(r: ExchangeReader, accountId: Id, orderId: Id): Promise<OrderRecord | undefined> {
    const live = r.order(orderId);
    if (live) return live.accountId === accountId ? live : undefined;
    const old = await this.port.history.order(accountId, orderId);
    return old && old.accountId === accountId ? old : undefined;
  }

  /** Fills of one order, for answering a repeated clientOrderId (newest first in history). */
  private async fillsOf(accountId: Id, o: OrderRecord): Promise<Fill[]> {
    const recent = await this.port.history.fills({ accountId, currency: o.currency, limit: 1000, offset: 0 });
    return recent.filter((f) => f.orderId === o.id && f.isTaker).reverse();
  }

  /** A placement already made under this clientOrderId, as the same answer; undefined if none. */
  private async replay(accountId: Id, cmd: PlaceCommand): Promise<Placement | undefined> {
    if (!cmd.clientOrderId) return undefined;
    const r = this.port.reader();
    const prior = r.orderIdForClientOrderId(accountId, cmd.clientOrderId);
    if (!prior) return undefined;
    const o = await this.findOrder(r, accountId, prior);
    if (!o) return undefined;
    if (!repeats(r, accountId, cmd.clientOrderId, o, cmd)) {
      throw new ApiError('DUPLICATE_CLIENT_ORDER_ID', undefined, {
        clientOrderId: cmd.clientOrderId,
        orderId: o.id,
      });
    }
    return { order: o, fills: await this.fillsOf(accountId, o), replayed: true, seq: null };
  }

  /** Places one order: the first placement under a repeated clientOrderId, or a new one. */
  place(accountId: Id, request: PlaceRequest): Promise<Placement> {
    return new Promise<Placement>((resolve, reject) => this.placeTo(accountId, request, { resolve, reject }));
  }

  /**
   * `place` with its outcome told to `to`. Without a key there is nothing to replay, and the
   * placement is answered from the group commit's own callback: one object per order carries the
   * order id and the seq to `to`, no promise and no async frame in between (this runs for every
   * order of both transports; docs/decisions.md "The placement's answer from the group commit").
   */
  placeTo(accountId: Id, request: PlaceRequest, to: Settle<Placement>): void {
    const orderId = this.port.newId();
    let cmd: PlaceCommand;
    try {
      cmd = placeCommand(accountId, orderId, request);
    } catch (err) {
      to.reject(err);
      return;
    }
    if (cmd.clientOrderId) {
      settleFrom(this.placeKeyed(accountId, cmd), to);
      return;
    }
    const placing = new Placing(orderId, this.rejectionError, to);
    submitTo(this.port, cmd, placing, placing.seqs);
  }

  /** A keyed placement: the answer of an earlier one under the key, or a new one. */
  private async placeKeyed(accountId: Id, cmd: PlaceCommand): Promise<Placement> {
    const again = await this.replay(accountId, cmd);
    if (again) return again;
    const seqs = [0];
    const result = await this.port.submit(cmd, seqs);
    if (!result.ok && result.code === 'DUPLICATE_CLIENT_ORDER_ID') {
      // Lost a race with a concurrent request carrying the same key: answer what it placed.
      const winner = await this.replay(accountId, cmd);
      if (winner) return winner;
    }
    if (!result.ok) throw this.rejectionError(result);
    const { order, fills } = placementOutcome(cmd.orderId, result.events);
    return { order, fills, replayed: false, seq: seqs[0] ?? null };
  }

  /**
   * Places a batch in order, in one commit: one result per item, the placement or the item's error.
   * Items the route found invalid arrive as their ApiError and stay so. The first item carrying a
   * clientOrderId owns the key for the batch: an identical repeat gets its answer (same key, same
   * result), a repeat with other terms DUPLICATE_CLIENT_ORDER_ID, as a single placement does.
   */
  async placeBatch(accountId: Id, items: (PlaceRequest | ApiError)[]): Promise<(Placement | ApiError)[]> {
    const results: (Placement | ApiError | undefined)[] = new Array(items.length);
    const toSubmit: { index: number; cmd: PlaceCommand }[] = [];
    const firstByKey = new Map<string, { index: number; cmd: PlaceCommand }>();
    const dupOf = new Map<number, number>();
    const conflictOf = new Map<number, number>();
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as PlaceRequest | ApiError;
      if (item instanceof ApiError) {
        results[i] = item;
        continue;
      }
      try {
        const cmd = placeCommand(accountId, this.port.newId(), item);
        if (cmd.clientOrderId) {
          const first = firstByKey.get(cmd.clientOrderId);
          if (first !== undefined) {
            (sameTerms(first.cmd, cmd) ? dupOf : conflictOf).set(i, first.index);
            continue;
          }
          const again = await this.replay(accountId, cmd);
          firstByKey.set(cmd.clientOrderId, { index: i, cmd });
          if (again) {
            results[i] = again;
            continue;
          }
        }
        toSubmit.push({ index: i, cmd });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        results[i] = err;
      }
    }
    const seqs: number[] = [];
    const outcomes =
      toSubmit.length > 0
        ? await this.port.submitMany(
            toSubmit.map((t) => t.cmd),
            seqs,
          )
        : [];
    toSubmit.forEach(({ index, cmd }, k) => {
      const res = outcomes[k]!;
      results[index] = res.ok
        ? { ...placementOutcome(cmd.orderId, res.events), replayed: false, seq: seqs[k] ?? null }
        : this.rejectionError(res);
    });
    for (const [i, first] of dupOf) results[i] = results[first];
    for (const [i, first] of conflictOf) {
      const owner = results[first];
      const orderId = owner !== undefined && !(owner instanceof ApiError) ? owner.order.id : undefined;
      results[i] = new ApiError('DUPLICATE_CLIENT_ORDER_ID', undefined, {
        clientOrderId: (items[i] as PlaceRequest).clientOrderId,
        ...(orderId !== undefined ? { orderId } : {}),
      });
    }
    return results as (Placement | ApiError)[];
  }

  /** Cancels one order of the account: the order as cancelled, or ORDER_NOT_FOUND. */
  async cancel(accountId: Id, orderId: Id): Promise<Cancelled & { order: OrderRecord }> {
    const id = orderId.toLowerCase();
    const live = this.port.reader().order(id);
    if (!live || live.accountId !== accountId) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
    const seqs = [0];
    const r = await this.port.submit({ type: 'CancelOrder', accountId, orderId: id }, seqs);
    if (!r.ok) throw this.rejectionError(r);
    const canceled = r.events.find(
      (e): e is DomainEvent & { kind: 'OrderCanceled' } => e.kind === 'OrderCanceled' && e.order.id === id,
    );
    if (!canceled) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
    const order: OrderRecord = { ...canceled.order, status: 'CANCELED' };
    return { order, orders: [order], seq: seqs[0] ?? null };
  }

  /**
   * Cancels several orders of the account in one command: one result per id, in order, the order
   * as cancelled or ORDER_NOT_FOUND (another account's order is not found, as an unknown id).
   */
  async cancelBatch(
    accountId: Id,
    orderIds: readonly string[],
  ): Promise<{ results: (OrderRecord | ApiError)[]; seq: number | null }> {
    const ids = orderIds.map((s) => s.toLowerCase());
    const r = this.port.reader();
    const mine = [...new Set(ids.filter((id) => r.order(id)?.accountId === accountId))];
    const done =
      mine.length > 0 ? await this.cancelMany(accountId, 'all', undefined, mine) : { orders: [], seq: null };
    const byId = new Map(done.orders.map((o) => [o.id, o]));
    const results = ids.map((id) => byId.get(id) ?? new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`));
    return { results, seq: done.seq };
  }

  /**
   * Cancels every order of the account, or those on one event or market (EVENT_NOT_FOUND /
   * MARKET_NOT_FOUND for an unknown one). Nothing open: nothing is submitted.
   */
  async cancelScope(accountId: Id, scope: CancelScope, scopeId?: string): Promise<Cancelled> {
    const r = this.port.reader();
    if (scope === 'all') {
      if (r.openOrders(accountId).length === 0) return { orders: [], seq: null };
      return this.cancelMany(accountId, 'all');
    }
    const id = (scopeId ?? '').toLowerCase();
    if (scope === 'event' ? !r.event(id) : !r.market(id)) {
      throw new ApiError(
        scope === 'event' ? 'EVENT_NOT_FOUND' : 'MARKET_NOT_FOUND',
        `${scope === 'event' ? 'Event' : 'Market'} ${id} not found`,
      );
    }
    return this.cancelMany(accountId, scope, id);
  }

  /** One CancelOrders command; the orders it cancelled, in the engine's order. */
  private async cancelMany(
    accountId: Id,
    scope: CancelScope,
    scopeId?: Id,
    orderIds?: Id[],
  ): Promise<Cancelled> {
    const seqs = [0];
    const r = await this.port.submit(
      {
        type: 'CancelOrders',
        accountId,
        scope,
        ...(scopeId ? { scopeId } : {}),
        ...(orderIds ? { orderIds } : {}),
      },
      seqs,
    );
    if (!r.ok) throw this.rejectionError(r);
    const orders: OrderRecord[] = [];
    for (const e of r.events) if (e.kind === 'OrderCanceled') orders.push({ ...e.order, status: 'CANCELED' });
    return { orders, seq: seqs[0] ?? null };
  }
}

/** An unkeyed placement waiting for its command's durable result: the answer made from it. */
class Placing implements Settle<CommandResult> {
  /** The command's journal seq at index 0, set by the sequencer when it applies it. */
  readonly seqs = [0];

  constructor(
    private readonly orderId: Id,
    private readonly rejectionError: RejectionToError,
    private readonly to: Settle<Placement>,
  ) {}

  resolve(result: CommandResult): void {
    if (!result.ok) {
      this.to.reject(this.rejectionError(result));
      return;
    }
    let outcome: { order: OrderRecord; fills: Fill[] };
    try {
      outcome = placementOutcome(this.orderId, result.events);
    } catch (err) {
      this.to.reject(err);
      return;
    }
    this.to.resolve({
      order: outcome.order,
      fills: outcome.fills,
      replayed: false,
      seq: this.seqs[0] ?? null,
    });
  }

  reject(err: unknown): void {
    this.to.reject(err);
  }
}
