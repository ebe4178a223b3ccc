// Numbers and times for people. Prices are probabilities (0.001–0.999); quantities are payout in
// minimum currency units (CASH: cents), docs/http.md.

export function price(p: number | null | undefined): string {
  return p === null || p === undefined ? '—' : p.toFixed(3);
}

export function qty(q: number): string {
  return q.toLocaleString('en-US');
}

/** A Cash amount as people read it: to the cent (the exact figure goes in `cashExact`, on hover). */
export function cash(units: number): string {
  return units.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** The same amount at the API's full precision (fees and pro rata settlements leave fractions). */
export function cashExact(units: number): string {
  return units.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 5 });
}

/** How a price is shown: the contract's probability price, or the odds a sportsbook would quote. */
export type OddsMode = 'probability' | 'american' | 'decimal';

export const ODDS_MODES: readonly [OddsMode, string][] = [
  ['probability', 'Probability'],
  ['american', 'American odds'],
  ['decimal', 'Decimal odds'],
];

export function odds(p: number | null | undefined, mode: OddsMode): string {
  if (p === null || p === undefined) return '—';
  if (mode === 'american') return americanOdds(p);
  if (mode === 'decimal') return decimalOdds(p);
  return price(p);
}

/** Decimal odds of a price (payout per unit staked). */
export function decimalOdds(p: number): string {
  return p > 0 ? (1 / p).toFixed(2) : '—';
}

/** American odds: +X wins X per 100 staked (p < 0.5); −X stakes X to win 100. */
export function americanOdds(p: number): string {
  if (!(p > 0 && p < 1)) return '—';
  const dec = 1 / p;
  if (dec >= 2) return `+${Math.round((dec - 1) * 100)}`;
  return `${Math.round(-100 / (dec - 1))}`.replace('-', '−');
}

const local = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const localTime = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The viewer's zone for display; the exact UTC instant goes in the title (shown on hover). */
export function when(iso: string): { text: string; utc: string } {
  const d = new Date(iso);
  return { text: local.format(d), utc: `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC` };
}

export function clock(ms: number): { text: string; utc: string } {
  const d = new Date(ms);
  return { text: localTime.format(d), utc: `${d.toISOString().replace('T', ' ').slice(0, 23)} UTC` };
}

export function age(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

export const STATUS_WORDS: Record<string, string> = {
  INITIAL: 'Not open',
  OPEN_PREGAME: 'Open (pre-game)',
  CLOSED_PREGAME: 'Closed (pre-game)',
  OPEN_INGAME: 'Live',
  FINAL: 'Final',
  DELAYED: 'Delayed',
  CANCELED: 'Canceled',
  OPEN: 'Open',
  CLOSED: 'Closed',
  SETTLED: 'Settled',
};
