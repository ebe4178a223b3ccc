// Both outcomes' ladders from one book (docs/exchange.md "Books and matching"): the book is seen from outcome 0; a bid on
// outcome 1 at q is an offer of outcome 0 at 1 − q, and the other way round.
import type { BookWire, Level } from './api.ts';

export const DEPTH = 5;

const flip = (p: number) => Math.round((1 - p) * 1000) / 1000;

export interface Ladder {
  bids: Level[];
  asks: Level[];
}

/** Outcome 0 reads the book as is; outcome 1 reads it mirrored. */
export function ladderFor(book: BookWire, index: number): Ladder {
  if (index === 0) return { bids: book.bids, asks: book.asks };
  return {
    bids: book.asks.map((l) => ({ price: flip(l.price), qty: l.qty })),
    asks: book.bids.map((l) => ({ price: flip(l.price), qty: l.qty })),
  };
}

/** Exactly `n` rows, blanks last, so the ladder never changes height as the book moves. */
export function padded(levels: Level[], n = DEPTH): (Level | undefined)[] {
  const rows: (Level | undefined)[] = levels.slice(0, n);
  while (rows.length < n) rows.push(undefined);
  return rows;
}
