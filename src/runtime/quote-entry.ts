// Amend, queue position and mass quote for order-entry transports (docs/exchange.md "Amend and queue
// priority", "Mass quotes"; docs/http.md "Amend and mass quote"). A transport (the REST routes in
// src/http/routes/quotes.ts, a socket's message table) validates the shape of a request, then calls
// one method here with the caller's account: the wire price becomes a tick, the command is
// submitted, and the answer is read from the command's own events once it is durable. Errors are
// ApiErrors of the one registry, as order-entry.ts raises them, so every transport answers the same
// codes. Idempotency: an amend repeated after it took effect is AMEND_NO_CHANGE (its details carry
// the order's price and qty), a mass quote repeated is accepted and changes nothing.

import { ApiError } from '../errors.ts';
import {
  type CommandResult,
  type Currency,
  type DomainEvent,
  type Id,
  MAX_QUOTE_LEVELS,
  type OrderRecord,
} from '../exchange/types.ts';
import { priceToTick, tickToPrice } from '../exchange/units.ts';
import { type CommandInput, type ExchangePort, type Settle, submitTo } from './exchange-port.ts';
import type { RejectionToError } from './order-entry.ts';

/** An amend as the wire gives it: the new price (a decimal) and/or the new remaining qty. */
export interface AmendRequest {
  price?: number;
  qty?: number;
}

/** A mass quote as the wire gives it (prices decimals). */
export interface QuoteRequest {
  marketId: string;
  currency: Currency;
  quotes: { outcomeId: string; levels: { price: number; qty: number }[] }[];
}

export interface QueuePosition {
  orderId: Id;
  outcomeId: Id;
  price: number;
  ordersAhead: number;
  qtyAhead: number;
}

/** A mass quote's outcome: the account's resulting quotes on the listed outcomes, best price first. */
export interface QuoteSet {
  marketId: Id;
  currency: Currency;
  orders: OrderRecord[];
}

type AmendCommand = CommandInput & { type: 'AmendOrder' };
type QuoteCommand = CommandInput & { type: 'MassQuote' };

function tickOf(price: number, where: string): number {
  const tick = priceToTick(price);
  if (tick === null) throw new ApiError('INVALID_PRICE', `${where}: price ${price} is not on the tick table`);
  return tick;
}

/** The AmendOrder command for a request, or the edge's own rejection. */
export function amendCommand(accountId: Id, orderId: Id, b: AmendRequest): AmendCommand {
  if (b.price === undefined && b.qty === undefined)
    throw new ApiError('VALIDATION_FAILED', 'body must have price or qty (or both)');
  if (b.qty !== undefined && !(Number.isSafeInteger(b.qty) && b.qty > 0)) throw new ApiError('INVALID_QTY');
  return {
    type: 'AmendOrder',
    accountId,
    orderId,
    ...(b.price !== undefined ? { price: tickOf(b.price, 'body/price') } : {}),
    ...(b.qty !== undefined ? { qty: b.qty } : {}),
  };
}

/**
 * The MassQuote command for a request, or the edge's rejection. One fresh id, `idBase`, names every
 * order the command may rest: the engine derives a level's id from it only when the level rests a
 * new order (docs/exchange.md "Mass quotes"), where most levels keep, shrink or re-queue one.
 */
export function quoteCommand(accountId: Id, b: QuoteRequest, idBase: Id): QuoteCommand {
  // Loops rather than sets and closures: at most 2 outcomes of at most MAX_QUOTE_LEVELS levels, so
  // a scan of the ones before is cheaper than a Set per request.
  const quotes: QuoteCommand['quotes'] = [];
  for (let i = 0; i < b.quotes.length; i++) {
    const q = b.quotes[i]!;
    const outcomeId = q.outcomeId.toLowerCase();
    for (let k = 0; k < i; k++)
      if (quotes[k]!.outcomeId === outcomeId)
        throw new ApiError('VALIDATION_FAILED', `body/quotes/${i}: outcome listed twice`);
    if (q.levels.length > MAX_QUOTE_LEVELS)
      throw new ApiError('VALIDATION_FAILED', `body/quotes/${i}/levels: at most ${MAX_QUOTE_LEVELS}`);
    const levels: QuoteCommand['quotes'][number]['levels'] = [];
    for (let j = 0; j < q.levels.length; j++) {
      const l = q.levels[j]!;
      const price = tickOf(l.price, `body/quotes/${i}/levels/${j}`);
      for (let k = 0; k < j; k++)
        if (levels[k]!.price === price)
          throw new ApiError('VALIDATION_FAILED', `body/quotes/${i}/levels/${j}: price listed twice`);
      if (!(Number.isSafeInteger(l.qty) && l.qty >= 0))
        throw new ApiError('INVALID_QTY', `body/quotes/${i}/levels/${j}: qty must be an integer ≥ 0`);
      levels.push({ price, qty: l.qty });
    }
    quotes.push({ outcomeId, levels });
  }
  return {
    type: 'MassQuote',
    accountId,
    marketId: b.marketId.toLowerCase(),
    currency: b.currency,
    idBase,
    quotes,
  };
}

/** The amended order as the command left it (after any matching), from its own events. */
export function amendOutcome(orderId: Id, events: readonly DomainEvent[]): OrderRecord {
  let order: OrderRecord | undefined;
  for (const e of events) {
    if ((e.kind === 'OrderAmended' || e.kind === 'OrderCanceled') && e.order.id === orderId) {
      order = e.kind === 'OrderCanceled' ? { ...e.order, status: 'CANCELED' } : e.order;
    }
  }
  if (!order) throw new ApiError('INTERNAL_ERROR', 'amend produced no order');
  return order;
}

export class QuoteEntry {
  constructor(
    private readonly port: ExchangePort,
    private readonly rejectionError: RejectionToError,
  ) {}

  /**
   * Amends one of the account's resting orders; the order as the amend left it, once durable.
   * `seqs`, when given, receives the command's journal seq at index 0 (ExchangePort.submit).
   */
  async amend(accountId: Id, orderId: Id, request: AmendRequest, seqs?: number[]): Promise<OrderRecord> {
    const id = orderId.toLowerCase();
    const cmd = amendCommand(accountId, id, request);
    const live = this.port.reader().order(id);
    if (!live || live.accountId !== accountId) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
    const result = await this.port.submit(cmd, seqs);
    if (!result.ok) {
      if (result.code === 'AMEND_NO_CHANGE') {
        throw new ApiError('AMEND_NO_CHANGE', undefined, {
          orderId: id,
          price: tickToPrice(live.price),
          qty: live.qty,
        });
      }
      throw this.rejectionError(result);
    }
    return amendOutcome(id, result.events);
  }

  /** Orders and quantity ahead of one of the account's resting orders at its price. */
  queuePosition(accountId: Id, orderId: Id): QueuePosition {
    const id = orderId.toLowerCase();
    const r = this.port.reader();
    const o = r.order(id);
    const at = o && o.accountId === accountId ? r.queuePosition(id) : undefined;
    if (!o || !at) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} is not resting among yours`);
    return { orderId: id, outcomeId: o.outcomeId, price: tickToPrice(o.price), ...at };
  }

  /** Replaces the account's quotes on the listed outcomes, all or nothing; the resulting set. `seqs` as for amend. */
  massQuote(accountId: Id, request: QuoteRequest, seqs?: number[]): Promise<QuoteSet> {
    return new Promise<QuoteSet>((resolve, reject) =>
      this.massQuoteTo(accountId, request, { resolve, reject }, seqs),
    );
  }

  /**
   * `massQuote` with its outcome told to `to`, from the group commit's callback (the placement's
   * path, OrderEntry.placeTo): a market maker requotes many times a second.
   */
  massQuoteTo(accountId: Id, request: QuoteRequest, to: Settle<QuoteSet>, seqs?: number[]): void {
    let cmd: ReturnType<typeof quoteCommand>;
    try {
      cmd = quoteCommand(accountId, request, this.port.newId());
    } catch (err) {
      to.reject(err);
      return;
    }
    submitTo(this.port, cmd, new Quoting(this.rejectionError, to), seqs);
  }
}

/** A mass quote waiting for its command's durable result: the resulting set, or the rejection. */
class Quoting implements Settle<CommandResult> {
  constructor(
    private readonly rejectionError: RejectionToError,
    private readonly to: Settle<QuoteSet>,
  ) {}

  resolve(result: CommandResult): void {
    if (!result.ok) {
      this.to.reject(this.rejectionError(result));
      return;
    }
    for (const e of result.events) {
      if (e.kind === 'QuotesReplaced') {
        this.to.resolve({ marketId: e.marketId, currency: e.currency, orders: e.orders });
        return;
      }
    }
    this.to.reject(new ApiError('INTERNAL_ERROR', 'mass quote produced no quote set'));
  }

  reject(err: unknown): void {
    this.to.reject(err);
  }
}
