// One event: every market with both outcomes' ladders, last price, volume, book seq and age; a
// depth chart of the chosen market; the trade tape; status changes and locks as they happen.
//
// A book frame's path to the screen is kept short (docs/ui.md "Live data"): the frames of one
// animation frame render once, and only what changed re-renders — the ticked market's card (the
// others keep their object and are skipped), not the tapes, the ages or the other cards; the depth
// chart redraws at most a few times a second.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EventWire, LocksWire, MarketWire } from './api.ts';
import { DepthChart } from './depth-chart.tsx';
import { type Activity, type ConnState, EventFeed, type Trade } from './feed.ts';
import { age, clock, odds, price, qty, STATUS_WORDS, when } from './format.ts';
import { ladderFor, padded } from './ladder.ts';
import { memo } from './memo.ts';
import { PriceChart } from './price-chart.tsx';
import { oddsMode, ownAction, slip, ticket, toggleLeg } from './state.ts';
import { useStore, useTick } from './store.ts';

const TAPE_MAX = 50;
/** One frame of a 60 Hz screen. */
const FRAME_MS = 16;

export function EventPage({ eventId }: { eventId: string }) {
  const [{ markets, receivedAt }, setShown] = useState<{ markets?: MarketWire[]; receivedAt: number }>({
    receivedAt: 0,
  });
  const [event, setEvent] = useState<EventWire | undefined>();
  const [locks, setLocks] = useState<LocksWire | undefined>();
  const [trades, setTrades] = useState<Trade[]>([]);
  const [activity, setActivity] = useState<Activity[]>([]);
  const [conn, setConn] = useState<{ s: ConnState; detail: string }>({ s: 'connecting', detail: '' });
  const [chartId, setChartId] = useState<string | undefined>();
  const feed = useRef<EventFeed | undefined>(undefined);

  useEffect(() => {
    // A book change renders at once when the page has not rendered one within the last frame's
    // time; changes that come faster wait out the rest of it and render once, with the latest
    // books (a screen could not show the ones between). A timer, not requestAnimationFrame: under
    // load Chromium may hold animation frames back for seconds while it paints, and the page must
    // not hold the books back with them.
    let latest: { markets: MarketWire[]; receivedAt: number } | undefined;
    let queued: ReturnType<typeof setTimeout> | undefined;
    let rendered = -Infinity;
    const show = () => {
      queued = undefined;
      rendered = performance.now();
      if (latest !== undefined) setShown(latest);
    };
    const f = new EventFeed(eventId, 'CASH', {
      markets: (m, at) => {
        latest = { markets: m, receivedAt: at };
        if (queued !== undefined) return;
        const since = performance.now() - rendered;
        if (since >= FRAME_MS) show();
        else queued = setTimeout(show, FRAME_MS - since);
      },
      event: setEvent,
      locks: setLocks,
      trade: (t) => setTrades((ts) => [t, ...ts].slice(0, TAPE_MAX)),
      activity: (a) => setActivity((as) => [a, ...as].slice(0, TAPE_MAX)),
      state: (s, detail) => setConn((c) => (c.s === s && c.detail === detail ? c : { s, detail })),
    });
    feed.current = f;
    f.start();
    const off = ownAction.subscribe(() => void f.refreshNow());
    return () => {
      off();
      f.stop();
      clearTimeout(queued);
    };
  }, [eventId]);

  const locked = locks !== undefined && (locks.systemLock !== null || locks.lockedEventIds.includes(eventId));
  const chartMarket = markets?.find((m) => m.id === chartId) ?? markets?.[0];
  const start = event ? when(event.scheduledStart) : undefined;

  return (
    <section class="event">
      <p class="crumbs">
        <a href="#/">← All events</a>
      </p>
      <h1 tabIndex={-1}>{event?.description ?? 'Event'}</h1>
      <div class="meta">
        {event && (
          <>
            <span class={`status s-${event.status}`}>{STATUS_WORDS[event.status] ?? event.status}</span>
            <span>{event.league}</span>
            {start && (
              <time dateTime={event.scheduledStart} title={start.utc}>
                {start.text}
              </time>
            )}
          </>
        )}
        <span class={`conn c-${conn.s}`} role="status" aria-live="polite">
          {conn.s === 'stream'
            ? 'Live: WebSocket stream'
            : conn.s === 'polling'
              ? `Live: polling (${conn.detail})`
              : conn.s === 'connecting'
                ? 'Connecting…'
                : `Connection problem: ${conn.detail}`}
        </span>
        {receivedAt > 0 && <Age prefix="checked " at={receivedAt} cls="age" />}
      </div>
      {locked && (
        <p class="lock" role="alert">
          Trading is locked
          {locks?.systemLock ? ' on the whole exchange' : ' for this event'} by the operator. Orders are
          refused until the lock is cleared.
        </p>
      )}
      {markets === undefined ? (
        <p aria-busy="true">Loading markets…</p>
      ) : (
        <div class="markets">
          {markets.map((m) => (
            <MarketCard key={m.id} m={m} charted={chartMarket?.id === m.id} onChart={setChartId} />
          ))}
        </div>
      )}
      {chartMarket && <DepthChart book={chartMarket.book} title={chartMarket.description} />}
      {chartMarket && (
        <PriceChart
          key={chartMarket.id}
          marketId={chartMarket.id}
          outcome0={chartMarket.outcomeIds[0] ?? ''}
          title={chartMarket.description}
          lastTrade={trades.find((t) => t.marketId === chartMarket.id)?.key ?? ''}
        />
      )}
      <div class="feeds">
        <TradeTape trades={trades} streaming={conn.s === 'stream'} />
        <ActivityList activity={activity} />
      </div>
    </section>
  );
}

/** "4.2 s ago", re-rendered on its own clock so the page around it does not re-render. */
function Age({ at, prefix = '', title, cls }: { at: number; prefix?: string; title?: string; cls?: string }) {
  const now = useTick(500);
  return (
    <span class={cls} title={title}>
      {prefix}
      {age(now - at)} ago
    </span>
  );
}

const TradeTape = memo(function TradeTape({ trades, streaming }: { trades: Trade[]; streaming: boolean }) {
  return (
    <section aria-labelledby="tape-h">
      <h2 id="tape-h">Trades</h2>
      <p class="hint">
        {streaming
          ? 'Each taker fill, from the stream.'
          : 'Inferred from volume changes between polls (the stream gives each fill).'}
      </p>
      <ol class="tape" aria-live="polite">
        {trades.length === 0 && <li class="empty">No trades since this page opened.</li>}
        {trades.map((t) => {
          const c = clock(t.at);
          return (
            <li key={t.key}>
              <time title={c.utc}>{c.text}</time> <span class="num">{qty(t.qty)}</span> @{' '}
              <span class="num">{price(t.price)}</span> {t.outcome} · {t.market}
            </li>
          );
        })}
      </ol>
    </section>
  );
});

const ActivityList = memo(function ActivityList({ activity }: { activity: Activity[] }) {
  return (
    <section aria-labelledby="act-h">
      <h2 id="act-h">Status changes and locks</h2>
      <ol class="tape" aria-live="polite">
        {activity.length === 0 && <li class="empty">No changes since this page opened.</li>}
        {activity.map((a) => {
          const c = clock(a.at);
          return (
            <li key={a.key}>
              <time title={c.utc}>{c.text}</time> {a.text}
            </li>
          );
        })}
      </ol>
    </section>
  );
});

const MarketCard = memo(function MarketCard({
  m,
  charted,
  onChart,
}: {
  m: MarketWire;
  charted: boolean;
  onChart: (marketId: string) => void;
}) {
  const legs = useStore(slip);
  const mode = useStore(oddsMode);
  const asOf = Date.parse(m.book.asOf);
  const asOfUtc = when(m.book.asOf).utc;
  return (
    <article class="market" aria-labelledby={`m-${m.id}`} data-market={m.id}>
      <header>
        <h2 id={`m-${m.id}`}>{m.description}</h2>
        <span class={`status s-${m.status}`}>{STATUS_WORDS[m.status] ?? m.status}</span>
      </header>
      <dl class="stats">
        <div>
          <dt>Volume</dt>
          <dd class="num">{qty(m.volume)}</dd>
        </div>
        <div>
          <dt>Book seq</dt>
          <dd class="num" data-seq={m.book.seq}>
            {m.book.seq}
          </dd>
        </div>
        <div>
          <dt>As of</dt>
          <dd class="num">
            <Age at={asOf} title={asOfUtc} />
          </dd>
        </div>
      </dl>
      <div class="outcomes">
        {m.outcomes.map((o) => {
          const l = ladderFor(m.book, o.index);
          const inSlip = legs.some((x) => x.outcomeId === o.id);
          const label = `${o.description} · ${m.description}`;
          const best = l.asks[0];
          return (
            <div class="outcome" key={o.id} data-outcome={o.id}>
              <h3>
                {o.description}{' '}
                <span class="last" title={o.last === null ? undefined : `probability ${price(o.last)}`}>
                  last {odds(o.last, mode)}
                </span>
              </h3>
              <table class="ladder">
                <caption class="sr-only">
                  {o.description}: offers (derived from the other side's bids) and resting bids
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Side</th>
                    <th scope="col" class="num">
                      Price
                    </th>
                    <th scope="col" class="num">
                      Qty
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {padded(l.asks)
                    .reverse()
                    .map((lv, i) => (
                      <tr
                        key={`a${i}`}
                        class={lv ? 'ask' : 'ask blank'}
                        onClick={
                          lv ? () => ticket.set({ outcomeId: o.id, label, price: lv.price }) : undefined
                        }
                      >
                        <td>{lv ? 'Offer' : ''}</td>
                        <td class="num" title={lv && mode !== 'probability' ? price(lv.price) : undefined}>
                          {lv ? odds(lv.price, mode) : ''}
                        </td>
                        <td class="num">{lv ? qty(lv.qty) : ''}</td>
                      </tr>
                    ))}
                  {padded(l.bids).map((lv, i) => (
                    <tr
                      key={`b${i}`}
                      class={lv ? 'bid' : 'bid blank'}
                      onClick={lv ? () => ticket.set({ outcomeId: o.id, label, price: lv.price }) : undefined}
                    >
                      <td>{lv ? 'Bid' : ''}</td>
                      <td class="num" title={lv && mode !== 'probability' ? price(lv.price) : undefined}>
                        {lv ? odds(lv.price, mode) : ''}
                      </td>
                      <td class="num">{lv ? qty(lv.qty) : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="actions">
                <button
                  type="button"
                  aria-pressed={inSlip}
                  onClick={() => toggleLeg({ outcomeId: o.id, label })}
                >
                  {inSlip ? 'In parlay' : '+ Parlay'}
                  <span class="sr-only"> {label}</span>
                </button>
                <button
                  type="button"
                  onClick={() =>
                    ticket.set({ outcomeId: o.id, label, price: best?.price ?? l.bids[0]?.price ?? 0.5 })
                  }
                >
                  Trade<span class="sr-only"> {label}</span>
                </button>
              </div>
            </div>
          );
        })}
      </div>
      <button type="button" class="chart-btn" aria-pressed={charted} onClick={() => onChart(m.id)}>
        {charted ? 'Depth chart shown below' : 'Show depth chart'}
      </button>
    </article>
  );
});
