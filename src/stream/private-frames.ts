// The `private` channel's frames (docs/stream.md "Messages"): each account's own order events of
// one applied command (`place`, `fill`, `cancel`, and `mmp` when market-maker protection froze or
// was reset), in event order, with the command's journal seq; then its parlay envelopes
// (parlay-frames.ts) and its boost claims (boost-frames.ts). Which accounts get frames is known at
// once; the order and fill envelopes, and a parlay's fill and updates, are serialized when first read
// (lazy-frames.ts), from the command's own events, which never change (quotes and boost claims are
// built at once).

import type { Command, DomainEvent, Id } from '../exchange/types.ts';
import { privateBoostFrames } from './boost-frames.ts';
import type { FrameInput } from './channel-types.ts';
import { type Frames, LazyFrames } from './lazy-frames.ts';
import { envelope, privateCancel, privateFill, privateMmp, privatePlace } from './messages.ts';
import { type DeferredFrame, parlayFrame, parlayFrameBytes, privateParlayFrames } from './parlay-frames.ts';

/** One account's item: an order or parlay event to serialize (a parlay's as the account sees it),
 * a deferred envelope, or a frame built already. */
type Item = DomainEvent | DeferredFrame | string;

/** Bytes of a private envelope's text (uuid ids, ISO times), the retention charge until built. */
const ENVELOPE_BYTES = 400;

/** The account an event is reported to on the private channel, or undefined for none. */
function ownerOf(e: DomainEvent): Id | undefined {
  switch (e.kind) {
    case 'OrderPlaced':
    case 'OrderAmended':
    case 'OrderCanceled':
      return e.order.accountId;
    case 'OrderFilled':
      return e.fill.accountId;
    case 'MmpTriggered':
    case 'MmpReset':
      return e.accountId;
    default:
      return undefined;
  }
}

function frameOf(e: Item, cmd: Command, journalSeq: number, viewer: Id): string {
  if (typeof e === 'string') return e;
  if (!('kind' in e)) return e.make();
  if (e.kind === 'ParlayChanged') return parlayFrame(cmd, e.parlay, viewer, journalSeq);
  // An amended order is announced as a placement of its new state (docs/stream.md).
  if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended')
    return envelope('place', privatePlace(e.order), { journalSeq });
  if (e.kind === 'OrderFilled') return envelope('fill', privateFill(e.fill), { journalSeq });
  if (e.kind === 'MmpTriggered' || e.kind === 'MmpReset')
    return envelope('mmp', privateMmp(e), { journalSeq });
  if (e.kind === 'OrderCanceled') return envelope('cancel', privateCancel(e.order), { journalSeq });
  throw new Error(`no private frame for ${e.kind}`);
}

export function privateFrames(x: FrameInput): Map<Id, Frames> | undefined {
  const { cmd, events, journalSeq } = x;
  let items: Map<Id, Item[]> | undefined;
  const push = (accountId: Id, item: Item) => {
    items ??= new Map();
    const list = items.get(accountId);
    if (list === undefined) items.set(accountId, [item]);
    else list.push(item);
  };
  for (const e of events) {
    const owner = ownerOf(e);
    if (owner !== undefined) push(owner, e);
  }
  privateParlayFrames(x, push);
  privateBoostFrames(x, push);
  if (items === undefined) return undefined;
  const out = new Map<Id, Frames>();
  for (const [account, list] of items as Map<Id, Item[]>) {
    let estimate = 0;
    for (const it of list)
      estimate +=
        typeof it === 'string'
          ? it.length
          : !('kind' in it)
            ? it.bytes
            : it.kind === 'ParlayChanged'
              ? parlayFrameBytes(it.parlay)
              : ENVELOPE_BYTES;
    out.set(
      account,
      new LazyFrames(list.length, estimate, () => list.map((it) => frameOf(it, cmd, journalSeq, account))),
    );
  }
  return out;
}
