// Placing a parlay for the signed-in trader (docs/parlays.md "REST", docs/ui.md "Parlay bets"): the
// authenticated request (its quotes then arrive on the stream: parlay-live.ts), the wager at the best live
// quote with the shown price as `maxPrice`, "My parlays" and the claimable boosts. Stakes are held
// as integer cents and sent as currency units; prices stay the server's probability strings until shown.
import { ApiError, traderCall } from './api.ts';

export interface QuoteWire {
  id: string;
  price: number;
  maxQty: number;
  createdAt: string;
  expiresAt: string;
}

export interface RequestWire {
  id: string;
  status: string;
  price: string;
  unboostedPrice: string;
  expiresAt: string;
  stake: number | null;
  quotes: QuoteWire[];
  wager: { parlayId: string; price: number; stake: number; fee: number; qty: number } | null;
  declined?: unknown;
}

export interface ParlayLegWire {
  outcomeId: string;
  price: number;
  status: string;
}

export interface ParlayWire {
  id: string;
  requestId: string;
  role: string;
  currency: string;
  price: number;
  qty: number;
  stake: number;
  fee: number;
  status: string;
  payout: number | null;
  legs: ParlayLegWire[];
  createdAt: string;
}

/** A boost as the boosts route may write it; every field is read defensively. */
export interface Boost {
  id: string;
  kind: string;
  value: number | string | null;
  leagues: string[];
  minLegs: number | null;
  maxStake: number | null;
  validTo: string | null;
  claimLimit: number | null;
  claimed: boolean | number;
  /** Claims not yet used by a fill (the server's `available`), when it says. */
  available: number | null;
  /** Claims the account may still make (the server's `remainingClaims`). */
  remaining: number | null;
}

/** "2.50" → 250: a stake typed in currency units, exact to the cent; undefined when not a valid amount. */
export function stakeCents(typed: string): number | undefined {
  const m = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(typed);
  if (!m) return undefined;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return cents > 0 ? cents : undefined;
}

/** Cents to the currency units the API takes (at most two decimals, so exact in a double). */
export const centsToUnits = (cents: number): number => cents / 100;

/** A fresh id for a wager, so a retried click never fills twice. */
export function newClientOrderId(): string {
  return `ui-${crypto.randomUUID()}`;
}

export function isOpen(r: RequestWire, now: number): boolean {
  return r.status === 'Unfilled' && Date.parse(r.expiresAt) > now;
}

/** The quote a wager would fill against: the lowest price, earliest on a tie, not expired. */
export function bestQuote(r: RequestWire, now: number): QuoteWire | undefined {
  let best: QuoteWire | undefined;
  for (const q of r.quotes ?? []) {
    if (Date.parse(q.expiresAt) <= now) continue;
    if (
      best === undefined ||
      q.price < best.price ||
      (q.price === best.price && Date.parse(q.createdAt) < Date.parse(best.createdAt))
    )
      best = q;
  }
  return best;
}

export async function createRequest(
  outcomeIds: string[],
  cents: number | undefined,
  boostId: string | null,
): Promise<RequestWire> {
  const body: Record<string, unknown> = { outcomes: outcomeIds.map((id) => ({ id })), boostId };
  if (cents !== undefined) body.stake = centsToUnits(cents);
  const answer = await traderCall<RequestWire[] | RequestWire>('POST', '/nbx/v1/parlay/request', body);
  const r = Array.isArray(answer) ? answer[0] : answer;
  if (!r || typeof r.id !== 'string') throw new ApiError(502, { message: 'The server answered no request' });
  return r;
}

export function readRequest(id: string): Promise<RequestWire> {
  return traderCall<RequestWire>('GET', `/nbx/v1/parlay/request/${encodeURIComponent(id)}`);
}

export function cancelRequest(id: string): Promise<unknown> {
  return traderCall('DELETE', `/nbx/v1/parlay/request/${encodeURIComponent(id)}`);
}

/** Wagers at the best quote: `maxPrice` is the price the trader saw, so a worse fill is a 409. */
export function wager(
  requestId: string,
  cents: number,
  maxPrice: number,
  clientOrderId: string,
): Promise<ParlayWire> {
  return traderCall<ParlayWire>('POST', `/nbx/v1/parlay/request/${encodeURIComponent(requestId)}/wager`, {
    stake: centsToUnits(cents),
    maxPrice,
    clientOrderId,
  });
}

/** The refusals that a fresh request can cure (the price moved, no quote, the request closed). */
export function needsNewRequest(e: unknown): boolean {
  return e instanceof ApiError && e.status === 409;
}

export async function myParlays(status?: 'OPEN' | 'SETTLED'): Promise<ParlayWire[]> {
  const q = status ? `?status=${status}` : '';
  const list = await traderCall<ParlayWire[]>('GET', `/nbx/v1/parlays${q}`);
  return Array.isArray(list) ? list : [];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Reads one boost from whatever the route writes; undefined when it has no id. */
export function readBoost(v: unknown): Boost | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const id = str(o.id) ?? (typeof o.id === 'number' ? String(o.id) : null);
  if (id === null) return undefined;
  return {
    id,
    kind: str(o.kind) ?? 'BOOST',
    value: typeof o.value === 'number' || typeof o.value === 'string' ? o.value : null,
    leagues: Array.isArray(o.leagues) ? o.leagues.filter((l): l is string => typeof l === 'string') : [],
    minLegs: num(o.minLegs),
    maxStake: num(o.maxStake),
    validTo: str(o.validTo),
    claimLimit: num(o.claimLimit),
    claimed: typeof o.claimed === 'boolean' || typeof o.claimed === 'number' ? o.claimed : false,
    available: num(o.available),
    remaining: num(o.remainingClaims ?? o.remaining),
  };
}

/** A claim that a request may still use: an unused one when the server counts them. */
export const isClaimed = (b: Boost): boolean =>
  b.available !== null
    ? b.available > 0
    : b.claimed === true || (typeof b.claimed === 'number' && b.claimed > 0);

/** The boosts on offer, or undefined when the server has no boosts route (404): show nothing then. */
export async function listBoosts(): Promise<Boost[] | undefined> {
  try {
    const body = await traderCall<unknown>('GET', '/nbx/v1/boosts');
    const list = Array.isArray(body)
      ? body
      : Array.isArray((body as { boosts?: unknown })?.boosts)
        ? (body as { boosts: unknown[] }).boosts
        : [];
    return list.map(readBoost).filter((b): b is Boost => b !== undefined);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 405)) return undefined;
    throw e;
  }
}

export function claimBoost(id: string): Promise<unknown> {
  return traderCall('POST', `/nbx/v1/boosts/${encodeURIComponent(id)}/claim`, {});
}
