// What the page's charts share: Lightweight Charts loaded once and on demand (so first load stays
// inside the JavaScript budget, docs/ui.md "Budget"), and the options that fit the page's light or
// dark palette. The library's attribution logo injects a <style> element the page's CSP refuses,
// so it is off and each chart's caption links the attribution instead.

type Lib = typeof import('lightweight-charts');
let lib: Promise<Lib> | undefined;

/** The chart library, imported the first time a chart is drawn. */
export function chartLib(): Promise<Lib> {
  lib ??= import('lightweight-charts');
  return lib;
}

/** Layout, grid and interaction options common to every chart, for the system's colour scheme. */
export function chartTheme() {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  return {
    autoSize: true,
    layout: {
      attributionLogo: false,
      background: { color: 'transparent' },
      textColor: dark ? '#d6d9de' : '#1f2328',
    },
    grid: { vertLines: { visible: false }, horzLines: { color: dark ? '#30363d' : '#eaeef2' } },
    handleScroll: false,
    handleScale: false,
  } as const;
}
