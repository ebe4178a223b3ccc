// Price history of one market: outcome 0's price at each trade (GET /nbx/v2/emm/markets/{id}/trades),
// drawn with TradingView Lightweight Charts, loaded on demand like the depth chart. Re-read when
// the page sees a trade on this market (at most every 5 s), so it follows the game.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getMarketData } from './api.ts';
import { chartLib, chartTheme } from './chart-theme.ts';
import { pricePoints, type TradeWire } from './price-points.ts';

export function PriceChart({
  marketId,
  outcome0,
  title,
  lastTrade,
}: {
  marketId: string;
  outcome0: string;
  title: string;
  /** The newest trade the page has seen on this market: a change asks for the history again. */
  lastTrade: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const series = useRef<{ setData(d: { time: number; value: number }[]): void } | undefined>(undefined);
  const [points, setPoints] = useState<{ time: number; value: number }[] | undefined>();
  const lastRead = useRef(0);
  const latest = useRef(points);
  latest.current = points;

  useEffect(() => {
    let dead = false;
    const read = () =>
      getMarketData<TradeWire[]>(`/nbx/v2/emm/markets/${marketId}/trades?currency=CASH&limit=500`).then(
        (r) => !dead && setPoints(pricePoints(r.body, outcome0)),
        () => !dead && setPoints([]),
      );
    const wait = Math.max(0, lastRead.current + 5000 - Date.now());
    const h = setTimeout(() => {
      lastRead.current = Date.now();
      void read();
    }, wait);
    return () => {
      dead = true;
      clearTimeout(h);
    };
  }, [marketId, outcome0, lastTrade]);

  useEffect(() => {
    let dead = false;
    let remove: (() => void) | undefined;
    void chartLib().then((lw) => {
      if (dead || !box.current) return;
      const c = lw.createChart(box.current, {
        ...chartTheme(),
        localization: { priceFormatter: (v: number) => v.toFixed(3) },
        timeScale: { timeVisible: true, secondsVisible: false },
      });
      const s = c.addSeries(lw.LineSeries, { color: '#0550ae', lineWidth: 2, priceLineVisible: false });
      series.current = { setData: (d) => s.setData(d as never) };
      if (latest.current) series.current.setData(latest.current);
      remove = () => c.remove();
    });
    return () => {
      dead = true;
      remove?.();
      series.current = undefined;
    };
  }, [marketId]);

  // Only when the points changed, not on every render of the page around it (a chart created after
  // they arrived takes them when it is made, above).
  useEffect(() => {
    if (points) series.current?.setData(points);
  }, [points]);

  return (
    <figure class="depth price-history">
      <figcaption>
        Price history: {title} (first outcome’s price at each trade, from{' '}
        <code>GET /nbx/v2/emm/markets/…/trades</code>). Chart by{' '}
        <a href="https://www.tradingview.com/" rel="noopener">
          TradingView
        </a>
        .
      </figcaption>
      {points !== undefined && points.length === 0 && (
        <p class="hint" data-testid="no-trades">
          No trades on this market yet.
        </p>
      )}
      <div
        ref={box}
        class={points !== undefined && points.length === 0 ? 'depth-box empty' : 'depth-box'}
        role="img"
        aria-label={`Price history of ${title}`}
        data-points={points?.length ?? 0}
      />
    </figure>
  );
}
