// Order entry (docs/architecture.md "The command path"): a placement request becomes a PlaceOrder
// command, a repeated clientOrderId answers the first placement (idempotency), a batch is applied in
// order in one commit, and the outcome of a placement is read from its own events. The HTTP route
// (src/http/routes/orders.ts) validates the body against its schema, calls this service and writes
// the wire; errors are ApiErrors of the one registry (docs/http.md "Validation and errors"), so the route maps nothing.
// Unlike the production service, answers are synchronous and final: a placement resolves once its
// command is durable.

import { ApiError } from '../errors.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type {
  Currency,
  DomainEvent,
  Fill,
  Id,
  OrderRecord,
  StpMode,
  TimeInForce,
} from '../exchange/types.ts';
import { priceToTick } from '../exchange/units.ts';
import type { CommandInput, ExchangePort } from './exchange-port.ts';

/** A placement request as the wire gives it (price a decimal, everything else already integers). */
export interface PlaceRequest {
  outcomeId: string;
  price: number;
  qty: number;
  currency: Currency;
  tif: TimeInForce;
  ttl?: number;
  flags?: string;
  clientOrderId?: string;
  stp?: StpMode;
  reprice?: boolean;
  mmp?: boolean;
}

/** The order as a placement left it, with the fills it produced; `replayed` for a repeated key. */
export interface Placement {
  order: OrderRecord;
  fills: Fill[];
  replayed: boolean;
}

type PlaceCommand = CommandInput & { type: 'PlaceOrder' };

/** Production clients send up to 256 orders per batch. */
export const MAX_BATCH = 256;

/**
 * The longest GTT time to live: 30 days (docs/http.md "Trading semantics"). An unbounded ttl let
 * an expiry past the Date range into the journal; a month covers any real event horizon. The
 * request schema states the same bound (src/http/schemas/trading.ts imports it from here).
 */
export const MAX_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The PlaceOrder command for a schema-valid request, or the edge's own rejection. */
export function placeCommand(accountId: Id, orderId: Id, b: PlaceRequest): PlaceCommand {
  const tick = priceToTick(b.price);
  if (tick === null) throw new ApiError('INVALID_PRICE', `Price ${b.price} is not on the tick table`);
  if (!Number.isSafeInteger(b.qty) || b.qty <= 0) throw new ApiError('INVALID_QTY');
  if (b.tif === 'GTT' && b.ttl === undefined)
    throw new ApiError('VALIDATION_FAILED', 'body/ttl is required for GTT');
  if (b.ttl !== undefined && !(Number.isSafeInteger(b.ttl) && b.ttl > 0 && b.ttl <= MAX_TTL_MS)) {
    throw new ApiError('VALIDATION_FAILED', `body/ttl must be an integer from 1 to ${MAX_TTL_MS} ms`);
  }
  if (b.tif !== 'GTT' && b.ttl !== undefined) {
    throw new ApiError('VALIDATION_FAILED', 'body/ttl applies to GTT orders only');
  }
  if (b.reprice === true && b.tif !== 'PO') {
    throw new ApiError('VALIDATION_FAILED', 'body/reprice applies to PO orders only');
  }
  return {
    type: 'PlaceOrder',
    orderId,
    accountId,
    outcomeId: b.outcomeId.toLowerCase(),
    currency: b.currency,
    price: tick,
    qty: b.qty,
    tif: b.tif,
    ...(b.ttl !== undefined ? { ttl: b.ttl } : {}),
    flags: b.flags ?? null,
    clientOrderId: b.clientOrderId ?? null,
    // absent options add no key: the journaled command stays byte-identical
    ...(b.stp !== undefined ? { stp: b.stp } : {}),
    ...(b.reprice === true ? { reprice: true } : {}),
    ...(b.mmp === true ? { mmp: true } : {}),
  };
}

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

/** Two placements under one key inside a batch: the terms sameRequest compares. */
function sameTerms(a: PlaceCommand, b: PlaceCommand): boolean {
  return (
    a.outcomeId === b.outcomeId &&
    a.price === b.price &&
    a.qty === b.qty &&
    a.currency === b.currency &&
    a.tif === b.tif
  );
}

function sameRequest(o: OrderRecord, cmd: PlaceCommand): boolean {
  return (
    o.outcomeId === cmd.outcomeId &&
    o.price === cmd.price &&
    o.originalQty === cmd.qty &&
    o.currency === cmd.currency &&
    o.tif === cmd.tif
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
    if (!sameRequest(o, cmd)) {
      throw new ApiError('DUPLICATE_CLIENT_ORDER_ID', undefined, {
        clientOrderId: cmd.clientOrderId,
        orderId: o.id,
      });
    }
    return { order: o, fills: await this.fillsOf(accountId, o), replayed: true };
  }

  /** Places one order: the first placement under a repeated clientOrderId, or a new one. */
  async place(accountId: Id, request: PlaceRequest): Promise<Placement> {
    const orderId = this.port.newId();
    const cmd = placeCommand(accountId, orderId, request);
    const again = await this.replay(accountId, cmd);
    if (again) return again;
    const result = await this.port.submit(cmd);
    if (!result.ok && result.code === 'DUPLICATE_CLIENT_ORDER_ID') {
      // Lost a race with a concurrent request carrying the same key: answer what it placed.
      const winner = await this.replay(accountId, cmd);
      if (winner) return winner;
    }
    if (!result.ok) throw this.rejectionError(result);
    return { ...placementOutcome(orderId, result.events), replayed: false };
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
    const outcomes = toSubmit.length > 0 ? await this.port.submitMany(toSubmit.map((t) => t.cmd)) : [];
    toSubmit.forEach(({ index, cmd }, k) => {
      const res = outcomes[k]!;
      results[index] = res.ok
        ? { ...placementOutcome(cmd.orderId, res.events), replayed: false }
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
}
