// Book frame → screen latency, measured inside the page (docs/ui.md "Live data"; BENCHMARKS.md
// "Trading screen"): an init script wraps the page's WebSocket `onmessage` to note when each book
// tick arrives (by market and seq), and a MutationObserver notes when that market's card shows a seq
// at or past it (`data-seq`). A page may render several ticks at once (those of one animation
// frame), so a tick counts as shown when a later one is: its latency runs to that DOM change, never
// less. The first seq a card shows settles nothing: ticks heard before the page showed that market
// (the board's `tape` channel, a snapshot's own seq) are dropped, not counted as late.
//
// Two figures per tick: to the DOM change (`__latency`), and to the animation frame that paints it
// (`__paint`): a change made in a task between frames is painted by the next frame, whose rAF
// callbacks run just before its paint (stamped there); a change made inside a rAF callback is
// painted by that same frame (stamped as the callback returns). A page that changes the DOM at once
// and one that waits for the frame are compared on what the screen shows.

export const FRAME_PROBE = `(() => {
  const arrived = new Map();
  const shown = new Map();
  window.__latency = [];
  window.__paint = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    set onmessage(f) {
      super.onmessage = (ev) => {
        if (typeof ev.data === 'string' && ev.data.startsWith('{"type":"')) {
          const m = /"seq":(\\d+)/.exec(ev.data);
          const id = /"marketId":"([0-9a-f-]{36})"/.exec(ev.data);
          if (m && id) {
            let l = arrived.get(id[1]);
            if (l === undefined) arrived.set(id[1], (l = []));
            const seq = Number(m[1]);
            if (l.length === 0 || l[l.length - 1][0] < seq) l.push([seq, performance.now()]);
          }
        }
        return f.call(this, ev);
      };
    }
    get onmessage() { return super.onmessage; }
  };
  const nativeRaf = window.requestAnimationFrame.bind(window);
  let waiting = [];
  let asked = false;
  const settle = (records, inFrame) => {
    const now = performance.now();
    for (const r of records) {
      const el = r.target.nodeType === 3 ? r.target.parentElement : r.target;
      const dd = el && el.closest && el.closest('[data-seq]');
      const art = dd && dd.closest('article[data-market]');
      if (!art) continue;
      const market = art.getAttribute('data-market');
      const seq = Number(dd.getAttribute('data-seq'));
      const l = arrived.get(market);
      const first = !shown.has(market);
      shown.set(market, seq);
      while (l !== undefined && l.length > 0 && l[0][0] <= seq) {
        const t0 = l.shift()[1];
        if (first) continue;
        window.__latency.push(now - t0);
        if (inFrame) window.__paint.push(now - t0);
        else waiting.push(t0);
      }
    }
    if (waiting.length > 0 && !asked) {
      asked = true;
      nativeRaf(() => {
        const now2 = performance.now();
        for (const t0 of waiting) window.__paint.push(now2 - t0);
        waiting = [];
        asked = false;
      });
    }
  };
  const obs = new MutationObserver((records) => settle(records, false));
  window.requestAnimationFrame = (cb) => nativeRaf((t) => {
    try { cb(t); } finally { settle(obs.takeRecords(), true); }
  });
  obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-seq'] });
})();`;

/** The q-quantile of sorted samples (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
