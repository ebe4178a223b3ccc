// Time enters the state machine only through commands (issue 5 item 6): this module looks at the
// state and the clock and says which commands are due — GTT expiries and lock expiries (one
// `Expire` command covers both) and, when configured, OPEN_PREGAME → OPEN_INGAME at scheduledStart.
// The engine never reads a clock, so replaying the journal reproduces the same state.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { DomainEvent, Id } from '../exchange/types.ts';
import type { CommandInput } from '../http/exchange-port.ts';

/** A binary min-heap of (time, id): the GTT orders still to expire. */
export class ExpiryHeap {
  private times: number[] = [];
  private ids: Id[] = [];

  get size(): number {
    return this.times.length;
  }

  peek(): number | undefined {
    return this.times[0];
  }

  push(t: number, id: Id): void {
    const times = this.times;
    const ids = this.ids;
    let i = times.length;
    times.push(t);
    ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p]! <= t) break;
      times[i] = times[p]!;
      ids[i] = ids[p]!;
      i = p;
    }
    times[i] = t;
    ids[i] = id;
  }

  pop(): [number, Id] | undefined {
    const times = this.times;
    const ids = this.ids;
    if (times.length === 0) return undefined;
    const top: [number, Id] = [times[0]!, ids[0]!];
    const lastT = times.pop()!;
    const lastId = ids.pop()!;
    const n = times.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && times[r]! < times[l]! ? r : l;
        if (times[c]! >= lastT) break;
        times[i] = times[c]!;
        ids[i] = ids[c]!;
        i = c;
      }
      times[i] = lastT;
      ids[i] = lastId;
    }
    return top;
  }
}

export interface ScheduleOptions {
  autoGoLive: boolean;
}

/**
 * Tracks what will fall due. Fed with every committed batch's events (GTT placements) and
 * seeded from the state after recovery.
 */
export class Schedule {
  private readonly gtt = new ExpiryHeap();

  constructor(private readonly opts: ScheduleOptions) {}

  /** After recovery: every resting GTT order of every account the state holds. */
  seed(orders: Iterable<{ id: Id; expiresAt: number | null }>): void {
    for (const o of orders) if (o.expiresAt !== null) this.gtt.push(o.expiresAt, o.id);
  }

  observe(events: readonly DomainEvent[]): void {
    for (const e of events) {
      if (e.kind === 'OrderPlaced' && e.order.status === 'RESTING' && e.order.expiresAt !== null) {
        this.gtt.push(e.order.expiresAt, e.order.id);
      }
    }
  }

  /** Commands due at `now`. Pure apart from consuming the heap entries it has dealt with. */
  due(reader: ExchangeReader, now: number): CommandInput[] {
    const out: CommandInput[] = [];
    let expire = false;
    // GTT: an entry whose order is gone (filled, cancelled) is simply dropped.
    while (this.gtt.size > 0 && this.gtt.peek()! <= now) {
      const [, id] = this.gtt.pop()!;
      if (reader.order(id)) expire = true;
    }
    const locks = reader.locks();
    for (const l of [locks.system, ...locks.events]) {
      if (l && l.expiresAt !== null && l.expiresAt <= now) expire = true;
    }
    if (expire) out.push({ type: 'Expire' });
    if (this.opts.autoGoLive) {
      // eventsSorted() is ordered by scheduledStart: stop at the first event still in the future.
      for (const ev of reader.eventsSorted()) {
        if (ev.scheduledStart > now) break;
        if (ev.type === 'Game' && ev.status === 'OPEN_PREGAME') {
          out.push({ type: 'SetEventStatus', eventId: ev.id, status: 'OPEN_INGAME' });
        }
      }
    }
    return out;
  }
}
