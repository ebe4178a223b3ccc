// One event: every market with both outcomes' ladders, last price, volume, book seq and age; a
// depth chart of the chosen market; the trade tape; status changes and locks as they happen.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EventWire, LocksWire, MarketWire } from './api.ts';
import { DepthChart } from './depth-chart.tsx';
import { type Activity, type ConnState, EventFeed, type Trade } from './feed.ts';
import { age, clock, odds, price, qty, STATUS_WORDS, when } from './format.ts';
import { ladderFor, padded } from './ladder.ts';
import { PriceChart } from './price-chart.tsx';
import { oddsMode, ownAction, slip, ticket, toggleLeg } from './state.ts';
import { useStore, useTick } from './store.ts';

const TAPE_MAX = 50;

export function EventPage({ eventId }: { eventId: string }) {
  const [markets, setMarkets] = useState<MarketWire[] | undefined>();
  const [receivedAt, setReceivedAt] = useState(0);
  const [event, setEvent] = useState<EventWire | undefined>();
  const [locks, setLocks] = useState<LocksWire | undefined>();
  const [trades, setTrades] = useState<Trade[]>([]);
  const [activity, setActivity] = useState<Activity[]>([]);
  const [conn, setConn] = useState<{ s: ConnState; detail: string }>({ s: 'connecting', detail: '' });
  const [chartId, setChartId] = useState<string | undefined>();
  const feed = useRef<EventFeed | undefined>(undefined);
  const now = useTick(500);

  useEffect(() => {
    const f = new EventFeed(eventId, 'CASH', {
      markets: (m, at) => {
        setMarkets(m);
        setReceivedAt(at);
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
        {receivedAt > 0 && <span class="age">checked {age(now - receivedAt)} ago</span>}
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
            <MarketCard
              key={m.id}
              m={m}
              now={now}
              charted={chartMarket?.id === m.id}
              onChart={() => setChartId(m.id)}
            />
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
        <section aria-labelledby="tape-h">
          <h2 id="tape-h">Trades</h2>
          <p class="hint">
            {conn.s === 'stream'
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
      </div>
    </section>
  );
}

function MarketCard({
  m,
  now,
  charted,
  onChart,
}: {
  m: MarketWire;
  now: number;
  charted: boolean;
  onChart: () => void;
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
          <dd class="num" title={asOfUtc}>
            {age(now - asOf)} ago
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
      <button type="button" class="chart-btn" aria-pressed={charted} onClick={onChart}>
        {charted ? 'Depth chart shown below' : 'Show depth chart'}
      </button>
    </article>
  );
}
