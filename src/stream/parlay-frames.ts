// Parlay frames of the /tape stream (docs/stream.md "Channels", docs/parlays.md): the makers'
// `parlayRequests` channel (every request when it is made, then its end) and the parlay envelopes of
// the private channel (a quote on the taker's request; a fill and each later change of a parlay to
// both of its sides). Read from the events of one applied command.

import type { Id, ParlayQuoteRecord, ParlayRecord, ParlayRequestRecord } from '../exchange/types.ts';
import { moneyToUnits, ppmToProbability } from '../exchange/units.ts';
import { parlayToWire } from '../wire/parlays.ts';
import type { FrameInput } from './channel-types.ts';
import { envelope } from './messages.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A request as makers see it: what to price, the house's reference price and the deadline. */
function requestFrame(r: ParlayRequestRecord, journalSeq: number): string {
  return envelope(
    'parlayRequest',
    {
      id: r.id,
      status: r.status,
      currency: r.currency,
      stake: r.stake === null ? null : moneyToUnits(r.stake),
      refPrice: ppmToProbability(r.refPrice),
      legs: r.legs.map((l) => ({
        outcomeId: l.outcomeId,
        marketId: l.marketId,
        eventId: l.eventId,
        price: ppmToProbability(l.price),
      })),
      declined: r.declined,
      createdAt: iso(r.createdAt),
      expiresAt: iso(r.expiresAt),
    },
    { journalSeq },
  );
}

/** The `parlayRequests` channel: a request when made (status Unfilled) and when it ends. */
export function parlayRequestFrames({ cmd, events, journalSeq }: FrameInput): string[] | undefined {
  const out: string[] = [];
  for (const e of events) {
    if (e.kind !== 'ParlayRequestChanged') continue;
    const made = cmd.type === 'ParlayRequest' && e.request.id === cmd.requestId;
    if (made || e.request.status !== 'Unfilled') out.push(requestFrame(e.request, journalSeq));
  }
  return out.length > 0 ? out : undefined;
}

function quoteData(r: ParlayRequestRecord, q: ParlayQuoteRecord) {
  return {
    id: q.quoteId,
    requestId: r.id,
    price: ppmToProbability(q.price),
    maxQty: q.maxQty,
    createdAt: iso(q.createdAt),
    expiresAt: iso(q.expiresAt),
  };
}

/**
 * The parlay envelopes of the private channel, pushed with `push(accountId, frame)`: `parlayQuote`
 * to the requester when a maker quotes; `parlayFill` to the taker and the maker of a wager's fill;
 * `parlayUpdate` to both when a later command changes the parlay (a leg settled; the parlay settled).
 */
export function privateParlayFrames(
  { cmd, events, journalSeq }: FrameInput,
  push: (accountId: Id, frame: string) => void,
): void {
  for (const e of events) {
    if (e.kind === 'ParlayRequestChanged') {
      if (cmd.type !== 'ParlayQuote' || e.request.id !== cmd.requestId) continue;
      const q = e.request.quotes.find((x) => x.quoteId === cmd.quoteId);
      if (q !== undefined)
        push(e.request.accountId, envelope('parlayQuote', quoteData(e.request, q), { journalSeq }));
    } else if (e.kind === 'ParlayChanged') {
      const p = e.parlay;
      const event = cmd.type === 'ParlayWager' ? 'parlayFill' : 'parlayUpdate';
      const [taker, maker] = parlayFramePair(event, p, journalSeq);
      push(p.takerAccountId, taker);
      if (maker !== undefined) push(p.makerAccountId, maker);
    }
  }
}

const json = JSON.stringify;
/** An object's members as JSON text without its braces, to splice into a larger object. */
const members = (o: object): string => json(o).slice(1, -1);

/**
 * The envelopes of one parlay for its taker and (when another account) its maker: exactly
 * `envelope(event, parlayToWire(p, side), {journalSeq})` for each side. Settling a market that many
 * parlays share makes two of these per parlay, so the members both sides share (the legs above
 * all) are serialized once and only role, clientOrderId and payout differ per side.
 */
export function parlayFramePair(
  event: 'parlayFill' | 'parlayUpdate',
  p: ParlayRecord,
  journalSeq: number,
): [taker: string, maker: string | undefined] {
  const w = parlayToWire(p, p.takerAccountId);
  const head = `{"event":${json(event)},"data":{${members({ id: w.id, requestId: w.requestId })},"role":`;
  const money = members({
    currency: w.currency,
    price: w.price,
    qty: w.qty,
    stake: w.stake,
    collateral: w.collateral,
    fee: w.fee,
  });
  const tail = members({
    boostId: w.boostId,
    unboostedPrice: w.unboostedPrice,
    boostCost: w.boostCost,
    legs: w.legs,
    createdAt: w.createdAt,
    settledAt: w.settledAt,
  });
  const status = json(w.status);
  const end = `},"journalSeq":${json(journalSeq)}}`;
  const frame = (role: string, clientOrderId: string | null, payout: number | null): string =>
    `${head}${json(role)},${money},"clientOrderId":${json(clientOrderId)},"status":${status},"payout":${json(payout)},${tail}${end}`;
  const taker = frame(w.role, w.clientOrderId, w.payout);
  if (p.makerAccountId === p.takerAccountId) return [taker, undefined];
  const payout = p.makerPayout === null ? null : moneyToUnits(p.makerPayout);
  return [taker, frame('MAKER', null, payout)];
}
