// The home page: a board of games, live ones first (with the score), then upcoming by start time,
// each with its moneyline, main spread and main total at the best price to buy either side, moving
// with the stream and flashing when a price changes (docs/ui.md "The board"). League tabs, a
// status filter (open: pre-game and live, by default) and a search by team.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type EventWire, getMarketData, type MarketWire } from './api.ts';
import { BoardFeed } from './board-feed.ts';
import { boardOrder, LIVE_STATUSES } from './board-order.ts';
import { type OddsMode, odds, price, STATUS_WORDS, when } from './format.ts';
import { clockText } from './game-clock.ts';
import { ladderFor } from './ladder.ts';
import { type LineKind, lineKind } from './main-lines.ts';
import { usePolled } from './poll.ts';
import { oddsMode } from './state.ts';
import { useStore } from './store.ts';

const STATUS_SETS: readonly [string, string, readonly string[]][] = [
  ['open', 'Open (pre-game and live)', ['OPEN_INGAME', 'DELAYED', 'OPEN_PREGAME']],
  ['live', 'Live', ['OPEN_INGAME', 'DELAYED']],
  ['pregame', 'Pre-game', ['OPEN_PREGAME']],
  ['final', 'Final', ['FINAL']],
];
const PAGE_LIMIT = 100;
const MAX_PAGES = 5;
const EVENTS_POLL_MS = 15_000;
const FALLBACK_POLL_MS = 10_000;
const SHOW_STEP = 40;
const KINDS: readonly [LineKind, string][] = [
  ['MONEY', 'Moneyline'],
  ['SPREAD', 'Spread'],
  ['TOTAL', 'Total'],
];

/**
 * Every event of these statuses, a few pages of each (conditional GETs, so a repeat is a 304). The
 * statuses are read side by side, and each page is handed to `partial` as it arrives: the first
 * page of each status holds the soonest games, which is all the first screen shows, so the board
 * paints after one round trip instead of waiting for the last page of the longest status.
 */
async function readEvents(
  statuses: readonly string[],
  partial: (sofar: EventWire[]) => void,
): Promise<EventWire[]> {
  const lists: EventWire[][] = statuses.map(() => []);
  await Promise.all(
    statuses.map(async (status, i) => {
      for (let page = 0; page < MAX_PAGES; page++) {
        const q = new URLSearchParams({
          status,
          limit: String(PAGE_LIMIT),
          offset: String(page * PAGE_LIMIT),
        });
        const r = await getMarketData<EventWire[]>(`/nbx/v2/emm/events?${q}`);
        lists[i] = [...lists[i]!, ...r.body];
        partial(lists.flat());
        if (r.body.length < PAGE_LIMIT) break;
      }
    }),
  );
  return lists.flat();
}

export function Board() {
  const [leagues, setLeagues] = useState<string[]>([]);
  const [league, setLeague] = useState('');
  const [status, setStatus] = useState('open');
  const [search, setSearch] = useState('');
  const [limit, setLimit] = useState(SHOW_STEP);
  const [, setVersion] = useState(0);
  const [streamUp, setStreamUp] = useState(false);
  const feed = useRef<BoardFeed | undefined>(undefined);
  const mode = useStore(oddsMode);

  useEffect(() => {
    // Several ticks within one frame re-render once.
    let queued = false;
    const f = new BoardFeed(
      () => {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => {
          queued = false;
          setVersion((v) => v + 1);
        });
      },
      (up) => setStreamUp(up),
    );
    feed.current = f;
    f.start();
    getMarketData<string[]>('/nbx/v2/emm/event-metadata/leagues').then(
      (r) => setLeagues(r.body),
      () => undefined,
    );
    return () => f.stop();
  }, []);

  useEffect(() => {
    if (streamUp) return;
    const h = setInterval(
      () => document.visibilityState !== 'hidden' && void feed.current?.poll(),
      FALLBACK_POLL_MS,
    );
    return () => clearInterval(h);
  }, [streamUp]);

  const { value: events, error } = usePolled<EventWire[]>(
    (partial) => readEvents(STATUS_SETS.find(([k]) => k === status)?.[2] ?? [''], partial),
    EVENTS_POLL_MS,
    [status],
  );

  const ordered = useMemo(() => boardOrder(events ?? [], league, search), [events, league, search]);
  const visible = ordered.slice(0, limit);
  const visibleKey = visible.map((e) => e.id).join();
  // Keyed by the ids shown: a new array with the same games is not a change.
  useEffect(() => {
    feed.current?.show(visible);
  }, [visibleKey]);

  const present = new Set((events ?? []).map((e) => e.league));
  return (
    <section class="board-page">
      <h1 tabIndex={-1}>Games</h1>
      <nav class="tabs" aria-label="Leagues">
        {['', ...leagues.filter((l) => present.has(l))].map((l) => (
          <button
            key={l || 'all'}
            type="button"
            class="tab"
            aria-pressed={league === l}
            onClick={() => {
              setLeague(l);
              setLimit(SHOW_STEP);
            }}
          >
            {l || 'All'}
          </button>
        ))}
      </nav>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select name="board-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUS_SETS.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Team
          <input
            name="board-search"
            type="search"
            placeholder="Search by team"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
        <span class={`conn c-${streamUp ? 'stream' : 'polling'}`} role="status">
          {streamUp ? 'Prices live from the stream' : 'Prices polled every 10 s'}
        </span>
        <a href="#/events">All events (futures too) →</a>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {events === undefined ? (
        <p aria-busy="true">Loading games…</p>
      ) : ordered.length === 0 ? (
        <p>No games match.</p>
      ) : (
        <div class="scroll-x">
          <table class="board">
            <caption class="sr-only">Games, live first, with the best price to buy each side</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Game</th>
                {KINDS.map(([k, label]) => (
                  <th key={k} scope="col">
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {visible.map((e) => (
                <GameRow key={e.id} e={e} feed={feed.current} mode={mode} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {ordered.length > limit && (
        <p>
          <button type="button" onClick={() => setLimit(limit + SHOW_STEP)}>
            Show {Math.min(SHOW_STEP, ordered.length - limit)} more of {ordered.length - limit}
          </button>
        </p>
      )}
    </section>
  );
}

function GameRow({ e, feed, mode }: { e: EventWire; feed: BoardFeed | undefined; mode: OddsMode }) {
  const g = e.game!;
  const live = LIVE_STATUSES.has(e.status);
  const score = live ? feed?.score((g as { id?: string }).id) : undefined;
  const clock = score ? clockText(e.league, score.period, score.timeRemaining) : '';
  const lines = feed?.lines(e.id) ?? {};
  const known = feed?.known(e.id) ?? false;
  const t = when(e.scheduledStart);
  return (
    <tr data-event={e.id} class={live ? 'live' : undefined}>
      <td>
        {live ? (
          <>
            <span class={`status s-${e.status}`}>{STATUS_WORDS[e.status] ?? e.status}</span>
            {clock && <span class="clock num">{clock}</span>}
          </>
        ) : (
          <time dateTime={e.scheduledStart} title={t.utc}>
            {t.text}
          </time>
        )}
        <span class="league">{e.league}</span>
      </td>
      <td>
        <a href={`#/event/${e.id}`} class="teams">
          <span>
            {g.awayTeam.name}
            {score && <strong class="score"> {score.away}</strong>}
          </span>
          <span>
            @ {g.homeTeam.name}
            {score && <strong class="score"> {score.home}</strong>}
          </span>
        </a>
      </td>
      {KINDS.map(([k]) => (
        <td key={k} class="line" data-kind={k}>
          <Line m={lines[k]} known={known} mode={mode} />
        </td>
      ))}
    </tr>
  );
}

function Line({ m, known, mode }: { m: MarketWire | undefined; known: boolean; mode: OddsMode }) {
  if (m === undefined) return <span class="muted">{known ? '—' : '…'}</span>;
  // Team lines read away then home, as the game column does; a total reads over then under.
  const sides = lineKind(m.type) === 'TOTAL' ? m.outcomes : [...m.outcomes].reverse();
  return (
    <a href={`#/event/${m.eventId}`} class="sides">
      <span class="sr-only">{m.description}: </span>
      {sides.map((o) => (
        <span key={o.id} class="side">
          <span class="who">{o.description}</span>
          <Px p={ladderFor(m.book, o.index).asks[0]?.price} mode={mode} />
        </span>
      ))}
    </a>
  );
}

/** A price that flashes green or red for a moment when it moves. */
function Px({ p, mode }: { p: number | undefined; mode: OddsMode }) {
  const prev = useRef(p);
  const [flash, setFlash] = useState('');
  useEffect(() => {
    const before = prev.current;
    prev.current = p;
    if (before === undefined || p === undefined || before === p) return;
    setFlash(p > before ? 'flash-up' : 'flash-down');
    const h = setTimeout(() => setFlash(''), 1500);
    return () => clearTimeout(h);
  }, [p]);
  return (
    <span
      class={`px num ${flash}`}
      data-price={p}
      title={p === undefined ? 'No offer' : `probability ${price(p)}`}
    >
      {p === undefined ? '—' : odds(p, mode)}
    </span>
  );
}
