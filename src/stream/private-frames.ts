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

function frameOf(e: Item, cmd: Command | undefined, journalSeq: number, viewer: Id): string {
  if (typeof e === 'string') return e;
  if (!('kind' in e)) return e.make();
  if (e.kind === 'ParlayChanged') return parlayFrame(cmd!, e.parlay, viewer, journalSeq);
  // An amended order is announced as a placement of its new state (docs/stream.md).
  if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended')
    return envelope('place', privatePlace(e.order), { journalSeq });
  if (e.kind === 'OrderFilled') return envelope('fill', privateFill(e.fill), { journalSeq });
  if (e.kind === 'MmpTriggered' || e.kind === 'MmpReset')
    return envelope('mmp', privateMmp(e), { journalSeq });
  if (e.kind === 'OrderCanceled') return envelope('cancel', privateCancel(e.order), { journalSeq });
  throw new Error(`no private frame for ${e.kind}`);
}

/**
 * One account's private frames of one command, serialized when first read; its inputs are fields,
 * not a closure's context (lazy-frames.ts): every order makes one or two, and retention keeps them.
 */
class PrivateFrames extends LazyFrames {
  constructor(
    estimate: number,
    private list: readonly Item[],
    /**
     * The command, for a parlay's envelope only (its event name); undefined for a list without
     * one. Retention keeps these frames long after the command's commit, and an order's frames
     * need nothing of it: holding it kept every placement's command alive (and promoted) with them.
     */
    private cmd: Command | undefined,
    private readonly journalSeq: number,
    /** The account whose log holds these frames (a parlay's envelope is written for its viewer). */
    private readonly viewer: Id,
  ) {
    super(list.length, estimate);
  }

  protected override build(): string[] {
    const out: string[] = new Array(this.list.length);
    for (let i = 0; i < out.length; i++)
      out[i] = frameOf(this.list[i]!, this.cmd, this.journalSeq, this.viewer);
    return out;
  }

  protected override release(): void {
    this.list = NO_ITEMS;
    this.cmd = undefined;
  }
}

const NO_ITEMS: readonly Item[] = [];

/**
 * The lists of the command being built, by account. One module-level collector and its one `push`
 * (privateFrames runs synchronously, never within itself), not a closure made per command.
 */
let collecting: Map<Id, Item[]> | undefined;
const push = (accountId: Id, item: Item): void => {
  collecting ??= new Map();
  const list = collecting.get(accountId);
  if (list === undefined) collecting.set(accountId, [item]);
  else list.push(item);
};

export function privateFrames(x: FrameInput): Map<Id, Frames> | undefined {
  const { cmd, events, journalSeq } = x;
  collecting = undefined;
  for (const e of events) {
    const owner = ownerOf(e);
    if (owner !== undefined) push(owner, e);
  }
  privateParlayFrames(x, push);
  privateBoostFrames(x, push);
  const items = collecting as Map<Id, Item[]> | undefined;
  collecting = undefined;
  if (items === undefined) return undefined;
  // The map is the answer: each account's list is replaced by its frames (a value set for a key
  // already present leaves the iteration as it is).
  const out = items as Map<Id, Item[] | Frames>;
  for (const [account, list] of items) {
    let estimate = 0;
    let parlay = false;
    for (const it of list) {
      if (typeof it === 'string') estimate += it.length;
      else if (!('kind' in it)) estimate += it.bytes;
      else if (it.kind === 'ParlayChanged') {
        estimate += parlayFrameBytes(it.parlay);
        parlay = true;
      } else estimate += ENVELOPE_BYTES;
    }
    out.set(account, new PrivateFrames(estimate, list, parlay ? cmd : undefined, journalSeq, account));
  }
  return out as Map<Id, Frames>;
}
