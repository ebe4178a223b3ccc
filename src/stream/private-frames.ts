// The `private` channel's frames (docs/stream.md "Messages"): each account's own order events of
// one applied command (`place`, `fill`, `cancel`, and `mmp` when market-maker protection froze or
// was reset), in event order, with the command's journal seq; then its parlay envelopes
// (parlay-frames.ts) and its boost claims (boost-frames.ts).

import type { Id } from '../exchange/types.ts';
import { privateBoostFrames } from './boost-frames.ts';
import type { FrameInput } from './channel-types.ts';
import { envelope, privateCancel, privateFill, privateMmp, privatePlace } from './messages.ts';
import { privateParlayFrames } from './parlay-frames.ts';

export function privateFrames(x: FrameInput): Map<Id, string[]> | undefined {
  const { events, journalSeq } = x;
  let out: Map<Id, string[]> | undefined;
  const push = (accountId: Id, frame: string) => {
    out ??= new Map();
    const list = out.get(accountId);
    if (list === undefined) out.set(accountId, [frame]);
    else list.push(frame);
  };
  for (const e of events) {
    // An amended order is announced as a placement of its new state (docs/stream.md).
    if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended')
      push(e.order.accountId, envelope('place', privatePlace(e.order), { journalSeq }));
    else if (e.kind === 'OrderFilled')
      push(e.fill.accountId, envelope('fill', privateFill(e.fill), { journalSeq }));
    else if (e.kind === 'MmpTriggered' || e.kind === 'MmpReset')
      push(e.accountId, envelope('mmp', privateMmp(e), { journalSeq }));
    else if (e.kind === 'OrderCanceled') {
      push(e.order.accountId, envelope('cancel', privateCancel(e.order), { journalSeq }));
    }
  }
  privateParlayFrames(x, push);
  privateBoostFrames(x, push);
  return out;
}
