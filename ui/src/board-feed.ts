// The board's data: which games are shown, their three main lines kept live from the stream, and
// the live games' scores. One REST request brings the lines of up to 50 games
// (`POST getMarketsByEvents`); after that every book moves by the stream's ticks (book-delta.ts)
// from the one `tape` channel (every book's ticks, no snapshot), so a board of a hundred lines costs
// one subscription rather than a hundred. A line whose ticks skip a seq is read again over REST.
// Scores and the game clock come from the GraphQL `game` table, read every 5 s for the live games
// on screen.

import { type BookWire, type EventWire, getMarketData, type MarketWire, postMarketData } from './api.ts';
import { LIVE_STATUSES } from './board-order.ts';
import { BookSync, isTick } from './book-delta.ts';
import { type LineKind, mainLines } from './main-lines.ts';
import { learn } from './names.ts';
import { STREAM_CHANNELS } from './stream-channels.ts';
import { TapeSocket } from './tape-socket.ts';

export interface Score {
  home: number;
  away: number;
  /** The game clock (docs/graphql.md), null until the server knows one. */
  period: number | null;
  timeRemaining: string | null;
}

const CHUNK = 50;
const SCORE_POLL_MS = 5000;

export class BoardFeed {
  private readonly sync = new BookSync('CASH');
  private readonly socket: TapeSocket;
  /** The chosen line markets of each event whose markets were read. */
  private readonly lineIds = new Map<string, Partial<Record<LineKind, string>>>();
  private readonly markets = new Map<string, MarketWire>();
  private readonly scores = new Map<string, Score>();
  private shown: EventWire[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly fetching = new Set<string>();
  private readonly fetchingBooks = new Set<string>();

  constructor(
    private readonly onChange: () => void,
    onStream: (up: boolean) => void,
  ) {
    this.socket = new TapeSocket((f) => this.onFrame(f), onStream);
  }

  start(): void {
    this.socket.want([STREAM_CHANNELS.tape]);
    this.socket.start();
    this.timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void this.readScores();
    }, SCORE_POLL_MS);
  }

  stop(): void {
    this.socket.stop();
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** The games on screen now: read the lines of new ones, follow exactly their markets. */
  show(events: EventWire[]): void {
    this.shown = events;
    const missing = events.map((e) => e.id).filter((id) => !this.lineIds.has(id) && !this.fetching.has(id));
    for (let i = 0; i < missing.length; i += CHUNK) void this.readLines(missing.slice(i, i + CHUNK));
    void this.readScores();
  }

  lines(eventId: string): Partial<Record<LineKind, MarketWire>> {
    const ids = this.lineIds.get(eventId) ?? {};
    const out: Partial<Record<LineKind, MarketWire>> = {};
    for (const [k, id] of Object.entries(ids) as [LineKind, string][]) {
      const m = this.markets.get(id);
      if (m !== undefined) out[k] = m;
    }
    return out;
  }

  /** Lines read yet for this event (an event with none shows dashes, not a spinner). */
  known(eventId: string): boolean {
    return this.lineIds.has(eventId);
  }

  score(gameId: string | undefined): Score | undefined {
    return gameId === undefined ? undefined : this.scores.get(gameId);
  }

  private async readLines(eventIds: string[]): Promise<void> {
    for (const id of eventIds) this.fetching.add(id);
    try {
      const all = await postMarketData<MarketWire[]>('/nbx/v2/emm/events/getMarketsByEvents', {
        eventIds,
        currency: 'CASH',
      });
      learn(all);
      const byEvent = new Map<string, MarketWire[]>();
      for (const m of all) byEvent.set(m.eventId, [...(byEvent.get(m.eventId) ?? []), m]);
      for (const id of eventIds) {
        const lines = mainLines(byEvent.get(id) ?? []);
        const ids: Partial<Record<LineKind, string>> = {};
        for (const [k, m] of Object.entries(lines) as [LineKind, MarketWire][]) {
          ids[k] = m.id;
          this.sync.load(m);
          this.markets.set(m.id, m);
        }
        this.lineIds.set(id, ids);
      }
      this.onChange();
    } catch {
      // Left unknown: the next `show` asks again.
    } finally {
      for (const id of eventIds) this.fetching.delete(id);
    }
  }

  private async readScores(): Promise<void> {
    const games = this.shown
      .filter((e) => LIVE_STATUSES.has(e.status) && e.game)
      .map((e) => (e.game as { id?: string }).id);
    const ids = games.filter((g): g is string => typeof g === 'string' && /^[0-9a-f-]{36}$/.test(g));
    if (ids.length === 0) return;
    try {
      const r = await postMarketData<{
        data?: {
          game?: {
            id: string;
            home_score: number | null;
            away_score: number | null;
            period?: number | null;
            time_remaining?: string | null;
          }[];
        };
      }>('/v1/graphql', {
        query: `{ game(where: {id: {_in: ${JSON.stringify(ids)}}}) { id home_score away_score period time_remaining } }`,
      });
      let changed = false;
      for (const g of r.data?.game ?? []) {
        if (g.home_score === null || g.away_score === null) continue;
        const next: Score = {
          home: g.home_score,
          away: g.away_score,
          period: g.period ?? null,
          timeRemaining: g.time_remaining ?? null,
        };
        const old = this.scores.get(g.id);
        if (old && JSON.stringify(old) === JSON.stringify(next)) continue;
        this.scores.set(g.id, next);
        changed = true;
      }
      if (changed) this.onChange();
    } catch {
      // Scores are an extra: the board works without them.
    }
  }

  private onFrame(f: unknown): void {
    const frame = f as { event?: string; data?: { channel?: string } };
    if (isTick(f)) {
      const step = this.sync.tick(f);
      if (step.changed) this.refresh(f.market.id);
      for (const id of step.refetch) this.readBook(id);
    } else if (frame.event === 'resync_required' && frame.data?.channel === STREAM_CHANNELS.tape) {
      // Ticks were lost: every line is read again, and the channel subscribed anew.
      this.socket.resubscribe(STREAM_CHANNELS.tape, false);
      void this.poll();
    }
  }

  /** One line's book again after a gap; its ticks wait in the sync meanwhile. */
  private readBook(marketId: string): void {
    if (this.fetchingBooks.has(marketId)) return;
    this.fetchingBooks.add(marketId);
    void getMarketData<BookWire>(`/nbx/v2/emm/book/${marketId}?currency=CASH`)
      .then((r) => {
        const m = this.markets.get(marketId);
        if (m === undefined) return;
        if (this.sync.load({ ...m, book: r.body })) setTimeout(() => this.readBook(marketId), 0);
        this.refresh(marketId);
      })
      .catch(() => setTimeout(() => this.readBook(marketId), 1000))
      .finally(() => this.fetchingBooks.delete(marketId));
  }

  private refresh(marketId: string): void {
    const v = this.sync.view(marketId);
    if (v === undefined) return;
    this.markets.set(marketId, v);
    this.onChange();
  }

  /** The fallback while the stream is down: the shown games' books again, one request per 50. */
  async poll(): Promise<void> {
    const ids = this.shown.map((e) => e.id).filter((id) => this.lineIds.has(id));
    const followed = new Set(ids.flatMap((id) => Object.values(this.lineIds.get(id) ?? {})));
    for (let i = 0; i < ids.length; i += CHUNK) {
      try {
        const all = await postMarketData<MarketWire[]>('/nbx/v2/emm/events/getMarketsByEvents', {
          eventIds: ids.slice(i, i + CHUNK),
          currency: 'CASH',
        });
        for (const m of all) {
          if (!followed.has(m.id)) continue;
          this.sync.load(m);
          this.markets.set(m.id, m);
        }
        this.onChange();
      } catch {
        // The next poll tries again.
      }
    }
  }
}
