// The signed-in trading panel kept current from the account's private stream (docs/stream.md
// "Messages", docs/ui.md "Trading panel"). The private channel carries `place` (the REST order shape,
// also for an amended order's new state), `fill` and `cancel` for each of the account's orders: open
// orders and fills are applied from them with no read. No frame carries the balance or the positions
// (they move with fees, collateral and netting that only the server computes), nor the best bids that
// value the positions: those are read again at most once per `slowMs` after a frame that changed them,
// and every `marksMs` while there are positions to value. Everything is read again when frames were
// lost (the stream came up again, or `resync_required` on `private`), and polled while it is down.
//
// Pure logic, no DOM and no socket, so the unit tests drive it with hand-made frames and count reads.

import type { FillWire, OrderWire, PositionWire } from './api.ts';
import { Follow, type PrivateStream, StreamOrPoll } from './parlay-live.ts';

/** How many fills the panel shows (the REST read's `limit`). */
export const FILLS_SHOWN = 20;

export type AccountFrame =
  | { kind: 'order'; order: OrderWire }
  | { kind: 'fill'; fill: FillWire }
  | { kind: 'cancel'; orderId: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A private-channel order frame the trading panel reads, or undefined for anything else. */
export function readAccountFrame(f: unknown): AccountFrame | undefined {
  if (!isObj(f) || !isObj(f.data)) return undefined;
  const d = f.data;
  if (typeof d.id !== 'string' || typeof d.outcomeId !== 'string') return undefined;
  if (typeof d.price !== 'number' || typeof d.qty !== 'number') return undefined;
  // The panel shows CASH: a COIN order's place, fill and cancel frames name their currency.
  if (typeof d.currency === 'string' && d.currency !== 'CASH') return undefined;
  if (f.event === 'place') {
    if (typeof d.status !== 'string' || typeof d.originalQty !== 'number') return undefined;
    return { kind: 'order', order: d as unknown as OrderWire };
  }
  if (f.event === 'fill') {
    if (typeof d.orderId !== 'string') return undefined;
    return { kind: 'fill', fill: d as unknown as FillWire };
  }
  if (f.event === 'cancel') return { kind: 'cancel', orderId: d.id };
  return undefined;
}

export interface AccountState {
  balance?: number;
  /** Resting orders, newest first. */
  orders: OrderWire[];
  positions: PositionWire[];
  /** Newest first, at most FILLS_SHOWN. */
  fills: FillWire[];
  /** Best bid (the price a position could be sold at now) by outcome id. */
  marks: Map<string, number>;
}

/**
 * The state with one frame applied. Idempotent, so the frames kept during a read go on top of its
 * answer again: a fill already listed changes nothing (the listed fills are the newest, so a fill the
 * answer already counts is among them).
 */
export function applyAccountFrame(s: AccountState, f: AccountFrame): AccountState {
  if (f.kind === 'order') {
    const o = f.order;
    const rest = s.orders.filter((x) => x.id !== o.id);
    if (o.status !== 'RESTING' || o.qty <= 0) {
      return rest.length === s.orders.length ? s : { ...s, orders: rest };
    }
    const i = s.orders.findIndex((x) => x.id === o.id);
    const orders = [...s.orders];
    // An amended order keeps its place in the list; a new one goes first.
    if (i >= 0) orders[i] = o;
    else orders.unshift(o);
    return { ...s, orders };
  }
  if (f.kind === 'cancel') {
    const orders = s.orders.filter((x) => x.id !== f.orderId);
    return orders.length === s.orders.length ? s : { ...s, orders };
  }
  const fill = f.fill;
  if (s.fills.some((x) => x.id === fill.id)) return s;
  const fills = [fill, ...s.fills].slice(0, FILLS_SHOWN);
  // A taker's `place` frame already carries what was left after its trades; a maker's resting
  // order learns of its trades from its fills only.
  if (fill.isTaker) return { ...s, fills };
  const orders: OrderWire[] = [];
  for (const o of s.orders) {
    if (o.id !== fill.orderId) orders.push(o);
    else if (o.qty - fill.qty > 0) orders.push({ ...o, qty: o.qty - fill.qty });
  }
  return { ...s, fills, orders };
}

/** The reads behind the panel (api.ts over REST; fakes in the tests). */
export interface AccountReads {
  balance(): Promise<number>;
  orders(): Promise<OrderWire[]>;
  positions(): Promise<PositionWire[]>;
  fills(): Promise<FillWire[]>;
  /** Best bids of the positions' outcomes. */
  marks(positions: PositionWire[]): Promise<Map<string, number>>;
}

export interface AccountTiming {
  /** The fallback poll while the stream is down. */
  pollMs: number;
  /** The least time between two reads of the balance and positions after frames. */
  slowMs: number;
  /** How often the positions' marks are read again while there are positions. */
  marksMs: number;
}

export const ACCOUNT_TIMING: AccountTiming = { pollMs: 2000, slowMs: 10_000, marksMs: 15_000 };

/**
 * The trading panel's state: loaded in full once, then orders and fills from frames; the balance
 * and positions read again after frames at most once per `slowMs`; marks every `marksMs`.
 */
export class AccountWatch {
  readonly follow: Follow<AccountState, AccountFrame>;
  /** Reads of the balance-and-positions refresh and of marks, for the tests. */
  slowReads = 0;
  private readonly fallback: StreamOrPoll;
  private readonly off: () => void;
  private up = false;
  private stopped = false;
  private lastSlow = 0;
  private slowTimer: ReturnType<typeof setTimeout> | undefined;
  private marksTimer: ReturnType<typeof setInterval> | undefined;
  private slowBusy = false;
  /** An own action came during a slow read: read once more after it (the answer may predate it). */
  private slowAgain = false;

  constructor(
    stream: PrivateStream,
    private readonly reads: AccountReads,
    onChange: (s: AccountState) => void,
    private readonly onError: (e: unknown) => void,
    private readonly timing: AccountTiming = ACCOUNT_TIMING,
    private readonly now: () => number = Date.now,
  ) {
    this.follow = new Follow(
      async () => {
        const [balance, orders, positions, fills] = await Promise.all([
          reads.balance(),
          reads.orders(),
          reads.positions(),
          reads.fills(),
        ]);
        const marks = await reads.marks(positions);
        this.lastSlow = this.now();
        return { balance, orders, positions, fills, marks };
      },
      applyAccountFrame,
      (s) => onChange(s),
      onError,
    );
    this.follow.reload();
    this.fallback = new StreamOrPoll(
      () => this.follow.poll(),
      timing.pollMs,
      () => this.follow.reload(),
    );
    this.off = stream.listen(
      (f) => {
        if (f.kind === 'resync') this.follow.reload();
        else if (f.kind === 'order' || f.kind === 'fill' || f.kind === 'cancel') {
          this.follow.frame(f);
          this.slowSoon();
        }
      },
      (up) => {
        this.up = up;
        this.fallback.state(up);
      },
    );
    this.marksTimer = setInterval(() => {
      if (this.up && (this.follow.value?.positions.length ?? 0) > 0) this.slowSoon();
    }, timing.marksMs);
  }

  /**
   * The trader placed, amended or cancelled from this page: the stream brings the orders and fills;
   * the balance and positions are read at once (a person looks for them now, not in 10 s). Without
   * the stream, everything is read now.
   */
  acted(): void {
    if (!this.up) {
      this.follow.reload();
      return;
    }
    if (this.slowTimer !== undefined) clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
    if (this.slowBusy) this.slowAgain = true;
    else void this.slow();
  }

  stop(): void {
    this.stopped = true;
    this.off();
    this.fallback.stop();
    this.follow.stop();
    if (this.slowTimer !== undefined) clearTimeout(this.slowTimer);
    if (this.marksTimer !== undefined) clearInterval(this.marksTimer);
  }

  /** One balance-and-positions read, no sooner than `slowMs` after the last (one pending at most). */
  private slowSoon(): void {
    if (this.stopped || this.slowTimer !== undefined) return;
    const wait = Math.max(0, this.lastSlow + this.timing.slowMs - this.now());
    this.slowTimer = setTimeout(() => {
      this.slowTimer = undefined;
      void this.slow();
    }, wait);
  }

  private async slow(): Promise<void> {
    if (this.stopped || this.slowBusy || this.follow.value === undefined) return;
    this.slowBusy = true;
    this.lastSlow = this.now();
    try {
      this.slowReads++;
      const [balance, positions] = await Promise.all([this.reads.balance(), this.reads.positions()]);
      const marks = await this.reads.marks(positions);
      const cur = this.follow.value;
      if (this.stopped || cur === undefined) return;
      // Orders and fills stay as the frames made them; only what no frame carries is replaced.
      this.follow.set({ ...cur, balance, positions, marks });
    } catch (e) {
      if (!this.stopped) this.onError(e);
    } finally {
      this.slowBusy = false;
      if (this.slowAgain) {
        this.slowAgain = false;
        void this.slow();
      }
    }
  }
}
