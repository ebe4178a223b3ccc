// A client-side book rebuilt from a `book` snapshot and the book ticks that follow it
// (docs/stream.md "Sequences"): the reference a bot can copy, and what the tests use to
// prove the stream and the REST book agree byte for byte at every seq.

import type { BookSnapshot, BookTick } from './messages.ts';

interface LadderBid {
  id: string;
  price: number;
  qty: number;
  originalQty: number;
  currency: string;
  outcomeId: string;
  marketId: string;
  status: 'RESTING';
  created_at: string;
}

export type ApplyOutcome = 'applied' | 'duplicate' | 'gap';

const toTick = (p: number) => Math.round(p * 1000);

export class BookReplica {
  readonly marketId: string;
  readonly marketDescription: string;
  readonly currency: string;
  /** The last complete book seq. */
  seq: number;
  private readonly outcomes: string[];
  private readonly ladders = new Map<string, LadderBid[]>();
  /** Within a command's group of ticks: the part last applied (0: between groups). */
  private part = 0;

  constructor(snap: BookSnapshot) {
    this.marketId = snap.marketId;
    this.marketDescription = snap.marketDescription;
    this.currency = snap.currency;
    this.seq = snap.seq;
    this.outcomes = snap.outcomeLadders.map((l) => l.outcomeId);
    for (const l of snap.outcomeLadders)
      this.ladders.set(
        l.outcomeId,
        l.bids.map((b) => ({ ...b })),
      );
  }

  /** Parts of the current group already applied (0 between groups). */
  get partInProgress(): number {
    return this.part;
  }

  /** True between groups: `seq` is a complete state a resume can start from. */
  get complete(): boolean {
    return this.part === 0;
  }

  apply(t: BookTick): ApplyOutcome {
    if (this.part === 0) {
      if (t.seq <= this.seq) return 'duplicate';
      if (t.seq !== this.seq + 1 || t.part !== 1) return 'gap';
    } else if (t.seq !== this.seq + 1 || t.part !== this.part + 1) {
      return t.seq === this.seq + 1 && t.part <= this.part ? 'duplicate' : 'gap';
    }
    if (t.type === 'PLACE') {
      for (const f of t.fills) {
        if (f.isTaker) continue;
        const l = this.ladders.get(f.outcomeId);
        const i = l?.findIndex((b) => b.id === f.orderId) ?? -1;
        if (l === undefined || i < 0) continue;
        l[i]!.qty -= f.qty;
        if (l[i]!.qty <= 0) l.splice(i, 1);
      }
      const o = t.order;
      if (o.status === 'RESTING' && o.qty > 0) {
        const l = this.ladders.get(o.outcomeId);
        if (l !== undefined) {
          // Priority: best (highest) price first, then arrival: after every bid priced >= it.
          let at = l.length;
          while (at > 0 && l[at - 1]!.price < o.price) at--;
          l.splice(at, 0, {
            id: o.id,
            price: o.price,
            qty: o.qty,
            originalQty: o.originalQty,
            currency: o.currency,
            outcomeId: o.outcomeId,
            marketId: o.marketId,
            status: 'RESTING',
            created_at: o.created_at,
          });
        }
      }
    } else {
      const l = this.ladders.get(t.order.outcomeId);
      const i = l?.findIndex((b) => b.id === t.order.id) ?? -1;
      if (l !== undefined && i >= 0) l.splice(i, 1);
    }
    if (t.part === t.parts) {
      this.seq = t.seq;
      this.part = 0;
    } else this.part = t.part;
    return 'applied';
  }

  /** The book as the REST endpoint shows it, without `asOf` (a wall-clock stamp). */
  toWire(): {
    marketId: string;
    marketDescription: string;
    bids: unknown[];
    asks: unknown[];
    outcomeLadders: unknown[];
    seq: number;
  } {
    const levels = (outcome: string | undefined, flip: boolean) => {
      const out: { price: number; qty: number }[] = [];
      for (const b of this.ladders.get(outcome ?? '') ?? []) {
        const price = flip ? (1000 - toTick(b.price)) / 1000 : b.price;
        const last = out[out.length - 1];
        if (last !== undefined && last.price === price) last.qty += b.qty;
        else out.push({ price, qty: b.qty });
      }
      return out;
    };
    return {
      marketId: this.marketId,
      marketDescription: this.marketDescription,
      bids: levels(this.outcomes[0], false),
      asks: levels(this.outcomes[1], true),
      outcomeLadders: this.outcomes.map((outcomeId) => ({
        outcomeId,
        bids: (this.ladders.get(outcomeId) ?? []).map((b) => ({ ...b })),
      })),
      seq: this.seq,
    };
  }
}
