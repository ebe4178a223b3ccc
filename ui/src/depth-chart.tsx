// Depth chart of one market (outcome 0's view) with TradingView Lightweight Charts' price-based
// horizontal scale (createOptionsChart), on a true price axis (depth-data.ts). Loaded on demand and
// themed by chart-theme.ts; the library's licence allows its attribution to be a visible link, so
// the caption below and the page footer carry it (the logo is off: the page's CSP refuses it).
import { useEffect, useRef } from 'preact/hooks';
import type { BookWire } from './api.ts';
import { chartLib, chartTheme } from './chart-theme.ts';
import { depthSeries } from './depth-data.ts';
import { memo } from './memo.ts';

/**
 * At most this often: the chart is a thousand points a series, and redrawing it on every tick of a
 * busy book would hold the page's main thread from the next tick (docs/ui.md "Live data").
 */
const REDRAW_MS = 500;

export const DepthChart = memo(function DepthChart({ book, title }: { book: BookWire; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ setData(b: BookWire): void; remove(): void } | undefined>(undefined);
  const latest = useRef(book);
  const redraw = useRef<{ at: number; timer: ReturnType<typeof setTimeout> | undefined }>({
    at: 0,
    timer: undefined,
  });
  latest.current = book;

  useEffect(() => {
    let dead = false;
    void chartLib().then((lw) => {
      if (dead || !box.current) return;
      const c = lw.createOptionsChart(box.current, {
        ...chartTheme(),
        localization: { precision: 3, priceFormatter: (v: number) => Math.round(v).toLocaleString('en-US') },
        timeScale: { fixLeftEdge: true, fixRightEdge: true },
      });
      const bids = c.addSeries(lw.AreaSeries, {
        lineColor: '#1a7f37',
        topColor: 'rgba(26,127,55,0.35)',
        bottomColor: 'rgba(26,127,55,0.05)',
        lineType: 1,
        priceLineVisible: false,
        lastValueVisible: false,
      });
      const asks = c.addSeries(lw.AreaSeries, {
        lineColor: '#cf222e',
        topColor: 'rgba(207,34,46,0.35)',
        bottomColor: 'rgba(207,34,46,0.05)',
        lineType: 1,
        priceLineVisible: false,
        lastValueVisible: false,
      });
      chart.current = {
        setData(b) {
          const d = depthSeries(b.bids, b.asks);
          bids.setData(d.bids);
          asks.setData(d.asks);
          c.timeScale().fitContent();
        },
        remove: () => c.remove(),
      };
      chart.current.setData(latest.current);
      redraw.current.at = performance.now();
    });
    return () => {
      dead = true;
      clearTimeout(redraw.current.timer);
      chart.current?.remove();
      chart.current = undefined;
    };
  }, []);

  useEffect(() => {
    const r = redraw.current;
    if (r.timer !== undefined) return; // a redraw is due: it takes the latest book
    const wait = Math.max(0, r.at + REDRAW_MS - performance.now());
    r.timer = setTimeout(() => {
      r.timer = undefined;
      r.at = performance.now();
      chart.current?.setData(latest.current);
    }, wait);
  }, [book]);

  return (
    <figure class="depth">
      <figcaption>
        Depth: {title} (cumulative payout; bids green, offers red, price on the horizontal axis). Chart by{' '}
        <a href="https://www.tradingview.com/" rel="noopener">
          TradingView
        </a>
        .
      </figcaption>
      <div ref={box} class="depth-box" role="img" aria-label={`Depth chart of ${title}`} />
    </figure>
  );
});
