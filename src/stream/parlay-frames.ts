// Parlay frames of the /tape stream (docs/stream.md "Channels", docs/parlays.md): the makers'
// `parlayRequests` channel (every request when it is made, then its end) and the parlay envelopes of
// the private channel (a quote on the taker's request; a fill and each later change of a parlay to
// both of its sides). Read from the events of one applied command.

import type {
  Command,
  DomainEvent,
  Id,
  ParlayQuoteRecord,
  ParlayRecord,
  ParlayRequestRecord,
} from '../exchange/types.ts';
import { moneyToUnits, ppmToProbability } from '../exchange/units.ts';
import { parlayToWire } from '../wire/parlays.ts';
import type { FrameInput } from './channel-types.ts';
import { LazyFrames } from './lazy-frames.ts';
import { envelope, type ParlayQuoteData, type ParlayRequestData } from './messages.ts';

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
    } satisfies ParlayRequestData,
    { journalSeq },
  );
}

/** Bytes of a `parlayRequest` envelope's text without its legs, and per leg (uuid ids; measured). */
const REQUEST_BYTES = 270;
const REQUEST_LEG_BYTES = 150;

/**
 * The `parlayRequests` channel: a request when made (status Unfilled) and when it ends. Serialized
 * when first read (lazy-frames.ts): most servers have no maker subscribed, and each request (and
 * each wager, which ends one) would pay for a frame nobody reads. The event holds a copy of the
 * request (requestView), so building it later gives the same text.
 */
export function parlayRequestFrames({ cmd, events, journalSeq }: FrameInput): LazyFrames | undefined {
  // Runs for every accepted command: the list is made only for a command that has a request.
  let requests: ParlayRequestRecord[] | undefined;
  let estimate = 0;
  for (const e of events) {
    if (e.kind !== 'ParlayRequestChanged') continue;
    const made = cmd.type === 'ParlayRequest' && e.request.id === cmd.requestId;
    if (!made && e.request.status === 'Unfilled') continue;
    requests ??= [];
    requests.push(e.request);
    estimate += REQUEST_BYTES + REQUEST_LEG_BYTES * e.request.legs.length;
  }
  if (requests === undefined) return undefined;
  return new LazyFrames(requests.length, estimate, () => requests.map((r) => requestFrame(r, journalSeq)));
}

function quoteData(r: ParlayRequestRecord, q: ParlayQuoteRecord): ParlayQuoteData {
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
 * A private frame serialized when first read (lazy-frames.ts): `make` builds it, `bytes` is the
 * retention charge until then.
 */
export interface DeferredFrame {
  bytes: number;
  make(): string;
}

/** Bytes of a parlay envelope's text without its legs, and per leg (uuid ids, ISO times; measured). */
const PARLAY_BYTES = 460;
const PARLAY_LEG_BYTES = 184;
/** Bytes of a `parlayQuote` envelope's text (uuid ids, ISO times; measured). */
const QUOTE_BYTES = 300;

/** The retention charge of a parlay envelope not built yet (its text's bytes, estimated). */
export const parlayFrameBytes = (p: ParlayRecord): number => PARLAY_BYTES + PARLAY_LEG_BYTES * p.legs.length;

/**
 * One side's parlay envelope: `parlayFill` in the wager that made the parlay, `parlayUpdate` in any
 * later command (a leg settled; the parlay settled). Built when first read (private-frames.ts).
 */
export function parlayFrame(cmd: Command, p: ParlayRecord, viewer: Id, journalSeq: number): string {
  const event = cmd.type === 'ParlayWager' ? 'parlayFill' : 'parlayUpdate';
  return envelope(event, parlayToWire(p, viewer), { journalSeq });
}

/**
 * The parlay envelopes of the private channel, pushed with `push(accountId, frame)`: `parlayQuote`
 * to the requester when a maker quotes; `parlayFill` to the taker and the maker of a wager's fill;
 * `parlayUpdate` to both when a later command changes the parlay (a leg settled; the parlay settled).
 * The fill and update envelopes are deferred: settling a market that many parlays share makes two
 * per parlay, most of them for accounts nobody is following. What is pushed for them is the
 * ParlayChanged event itself, to both sides' logs: the account whose log holds it is the viewer
 * (parlayFrame builds it then), so a settled parlay adds no object of the stream's own to what
 * the logs retain. The parlay in the event never changes (a copy, or a settled record), so
 * building the envelope later gives the same text.
 */
export function privateParlayFrames(
  { cmd, events, journalSeq }: FrameInput,
  push: (accountId: Id, frame: DeferredFrame | Extract<DomainEvent, { kind: 'ParlayChanged' }>) => void,
): void {
  for (const e of events) {
    if (e.kind === 'ParlayRequestChanged') {
      if (cmd.type !== 'ParlayQuote' || e.request.id !== cmd.requestId) continue;
      const r = e.request;
      const q = r.quotes.find((x) => x.quoteId === cmd.quoteId);
      // deferred as the fills are: the house quotes every request, followed or not
      if (q !== undefined)
        push(r.accountId, {
          bytes: QUOTE_BYTES,
          make: () => envelope('parlayQuote', quoteData(r, q), { journalSeq }),
        });
    } else if (e.kind === 'ParlayChanged') {
      push(e.parlay.takerAccountId, e);
      if (e.parlay.makerAccountId !== e.parlay.takerAccountId) push(e.parlay.makerAccountId, e);
    }
  }
}
