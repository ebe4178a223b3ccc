// A parlay bet in one call (docs/parlays.md "Bet in one call"): `POST /nbx/v1/parlay/request` with a
// `wager` member makes the request, lets the quotes that arrive at once compete (the house desk's,
// submitted in a microtask right after the request is applied), and fills at the best live quote
// not above maxPrice with the wager route's own ParlayWager command. The three commands are
// submitted back to back, before the group commit forms its batch, so they are usually made durable
// together; the answer waits for that. A wager that does not fill leaves the request open.

import { ApiError } from '../errors.ts';
import type { CommandInput, Id } from '../exchange/types.ts';
import type { ExchangePort } from '../runtime/exchange-port.ts';
import { acceptedEvents, rejectionError } from './routes/exchange-common.ts';

/** The wager of a one-call bet, checked: stake in Money, maxPrice in ppm. */
export interface BetWager {
  stake: number;
  maxPrice: number;
  clientOrderId: string;
}

/**
 * The request an earlier bet (or wager) with this clientOrderId filled, when it bet on these
 * outcomes: a repeat answers it. The same clientOrderId on other outcomes is
 * DUPLICATE_CLIENT_ORDER_ID, as the wager route answers it on another request.
 */
export function repeatedBet(
  port: ExchangePort,
  accountId: Id,
  clientOrderId: string,
  outcomeIds: readonly string[],
): Id | undefined {
  const reader = port.reader();
  const done = reader.parlayForClientOrderId(accountId, clientOrderId);
  if (done === undefined) return undefined;
  const r = reader.parlayRequest(done);
  const legs = r === undefined ? [] : r.legs.map((l) => l.outcomeId).sort();
  const asked = [...outcomeIds].sort();
  if (legs.length !== asked.length || legs.some((o, i) => o !== asked[i]))
    throw new ApiError('DUPLICATE_CLIENT_ORDER_ID', 'clientOrderId already used on another parlay');
  return done;
}

/**
 * Submits the request, then — once the quotes due at once are applied — the wager, and resolves
 * once both are durable with the filled request's id (a concurrent repeat of the clientOrderId
 * that filled first answers that one's). The request's rejection is thrown as the route throws it;
 * the wager's is a 409 (or the code the wager route gives) whose details name the open request.
 */
export async function betInOneCall(
  port: ExchangePort,
  request: Extract<CommandInput, { type: 'ParlayRequest' }>,
  wager: BetWager,
  outcomeIds: readonly string[],
): Promise<Id> {
  const { requestId, accountId } = request;
  const requested = port.submit(request);
  // The house desk queued its quote as a microtask when the request was applied: one turn of the
  // microtask queue lets it run, so the quote is applied before the wager and in the same batch.
  await undefined;
  // Not applied yet (a snapshot holds commands meanwhile): wait for the request's own answer, by
  // which time the desk has quoted it.
  if (port.reader().parlayRequest(requestId) === undefined) acceptedEvents(await requested);
  const filled = port.submit({ type: 'ParlayWager', requestId, accountId, ...wager });
  const [r, w] = await Promise.all([requested, filled]);
  acceptedEvents(r);
  if (w.ok) return requestId;
  if (w.code === 'ALREADY_EXISTS') {
    const first = repeatedBet(port, accountId, wager.clientOrderId, outcomeIds);
    if (first !== undefined) return first;
  }
  const e = rejectionError(w);
  throw new ApiError(
    e.code,
    `${e.message}; parlay request ${requestId} stays open: wager on it with POST /nbx/v1/parlay/request/${requestId}/wager`,
    { requestId, status: 'Unfilled', wager: e.details ?? null },
  );
}
