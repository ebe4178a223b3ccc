// The idempotency window in the snapshot (docs/exchange.md "Idempotency window",
// client-order-ids.ts): a section after the placed terms, written once a generation of keys has
// begun, so a state that never aged a key keeps the bytes (and hash) it had before the window
// existed. The current generation stays in the accounts section (snapshot.ts).

import type { BinReader, BinWriter } from './codec.ts';
import type { ExchangeState } from './state.ts';
import type { Id } from './types.ts';

export const CLIENT_ORDER_IDS_SECTION = 'client-order-ids/1';

/** When the current generation began, the sweep's cursor and the older keys in Map order. */
export function writeClientOrderIds(s: ExchangeState, w: BinWriter): void {
  if (s.keysSince < 0) return;
  w.str(CLIENT_ORDER_IDS_SECTION);
  w.f64(s.keysSince);
  w.u32(s.keysCursor);
  let accounts = 0;
  for (const a of s.accounts) if (a.olderClientOrders !== null) accounts++;
  w.u32(accounts);
  for (const a of s.accounts) {
    if (a.olderClientOrders === null) continue;
    w.u32(a.idx);
    w.u32(a.olderClientOrders.size);
    for (const [k, v] of a.olderClientOrders) {
      w.str(k);
      w.str(v);
    }
  }
}

export function readClientOrderIds(s: ExchangeState, r: BinReader): void {
  if (r.str() !== CLIENT_ORDER_IDS_SECTION) throw new Error('snapshot: unknown section');
  s.keysSince = r.f64();
  s.keysCursor = r.u32();
  for (let n = r.u32(); n > 0; n--) {
    const a = s.accounts[r.u32()];
    if (a === undefined) throw new Error('snapshot: clientOrderIds of an unknown account');
    const older = new Map<string, Id>();
    for (let m = r.u32(); m > 0; m--) older.set(r.str(), r.str());
    if (older.size === 0) throw new Error('snapshot: an empty generation of clientOrderIds');
    a.olderClientOrders = older;
    s.olderKeys += older.size;
  }
}
