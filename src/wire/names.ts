// Wire values of the domain's codes (docs/http.md "Market types on the wire"). A market type leaves
// as its upper-case code (`MONEY`, `SPREAD`, `TOTAL`, …): every client of the production API
// compares against those codes, and a human name such as "Moneyline" on the wire made those
// markets vanish from them. Filters accept the code or the human name in any case. Time stamps
// leave as ISO 8601 UTC with milliseconds.

import { MARKET_TYPES, type MarketType, type Millis } from '../exchange/types.ts';

/**
 * The one table of human names, for people (filters accept them; displays show them). Never sent
 * as a market's `type`.
 */
export const MARKET_TYPE_LABELS: Readonly<Record<MarketType, string>> = Object.freeze({
  MONEY: 'Moneyline',
  SPREAD: 'Spread',
  TOTAL: 'Total',
  TEAM_TOTAL: 'Team Total',
  MONEY_1H: '1H Moneyline',
  SPREAD_1H: '1H Spread',
  TOTAL_1H: '1H Total',
  YES_NO: 'Yes/No',
});

/** A market type as every wire object carries it (REST, stream, GraphQL, parlay legs): its code. */
export function marketTypeName(code: MarketType): MarketType {
  return code;
}

const BY_NAME = new Map<string, MarketType>();
for (const code of MARKET_TYPES) {
  BY_NAME.set(code.toLowerCase(), code);
  BY_NAME.set(MARKET_TYPE_LABELS[code].toLowerCase(), code);
}

/** Every value a `marketType` filter accepts: codes and human names (matched case-insensitively). */
export const MARKET_TYPE_FILTER_VALUES: readonly string[] = [
  ...MARKET_TYPES,
  ...MARKET_TYPES.map((code) => MARKET_TYPE_LABELS[code]),
];

/** A filter value (code or human name, any case) → the code, or undefined. */
export function parseMarketType(value: string): MarketType | undefined {
  return BY_NAME.get(value.trim().toLowerCase());
}

/** Every outcome `type` the wire carries (the outcome schema's enum). */
export const OUTCOME_TYPE_NAMES = ['HOME', 'AWAY', 'OVER', 'UNDER', 'YES', 'NO'] as const;
export type OutcomeTypeName = (typeof OUTCOME_TYPE_NAMES)[number];

/**
 * Outcome `type` on the wire: what side of the market the outcome is. Index 0 is home/over/yes,
 * index 1 away/under/no (docs/exchange.md).
 */
export function outcomeTypeName(market: MarketType, index: 0 | 1): OutcomeTypeName {
  switch (market) {
    case 'TOTAL':
    case 'TOTAL_1H':
    case 'TEAM_TOTAL':
      return index === 0 ? 'OVER' : 'UNDER';
    case 'YES_NO':
      return index === 0 ? 'YES' : 'NO';
    default:
      return index === 0 ? 'HOME' : 'AWAY';
  }
}

/**
 * The wire's time range: RFC 3339 §5.6 years 0000–9999. `Date#toISOString` throws a RangeError
 * past ±8.64e15 ms and writes six-digit signed years past 9999, neither of which a client parses,
 * so times are clamped into this range first and the conversion is total (docs/http.md).
 */
export const WIRE_MIN_MS = Date.parse('0000-01-01T00:00:00.000Z');
export const WIRE_MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** The millisecond suffixes "000Z" … "999Z". */
const MS_TEXT = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(3, '0')}Z`);
const EPOCH_TEXT = new Date(0).toISOString();

/**
 * The text up to the second ("2025-01-26T18:30:00.") of the two seconds last formatted: an order's
 * times are formatted several times on its way out (the answer, its stream frames), orders of one
 * commit share their millisecond, and parlay quotes expire a few seconds after now. Within a second
 * only the milliseconds change, so Date#toISOString runs about once per second per kind of time
 * (two slots, so the quotes' expiries and the orders' times do not evict each other) and the rest
 * is a table lookup.
 */
let secondA = Number.NaN;
let prefixA = '';
let secondB = Number.NaN;
let prefixB = '';

/** Millis → ISO 8601 UTC with milliseconds ("2025-01-26T18:30:00.000Z"); never throws. */
export function isoMillis(ms: Millis): string {
  // NaN (never produced by the engine) leaves as the Unix epoch rather than failing the response.
  if (Number.isNaN(ms)) return EPOCH_TEXT;
  // Date keeps whole milliseconds, truncating towards zero (ECMA-262 TimeClip).
  const t = ms < WIRE_MIN_MS ? WIRE_MIN_MS : ms > WIRE_MAX_MS ? WIRE_MAX_MS : Math.trunc(ms);
  const second = Math.floor(t / 1000);
  const millis = MS_TEXT[t - second * 1000]!;
  if (second === secondA) return prefixA + millis;
  if (second === secondB) return prefixB + millis;
  // The older slot gives way. Every time in the wire's range has the 24-character form.
  secondB = secondA;
  prefixB = prefixA;
  secondA = second;
  prefixA = secondText(second);
  return prefixA + millis;
}

/** "00" … "99". */
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));

/**
 * Date#toISOString up to the second ("2025-01-26T18:30:00.") of a second in the wire's range (years
 * 0000–9999), by integer arithmetic: the days since the epoch to a proleptic Gregorian date (the
 * civil-from-days algorithm of H. Hinnant, "chrono-compatible low-level date algorithms"). A quote
 * set's orders were placed at many different seconds, and a Date per miss of the two slots was most
 * of the cost of writing their times (docs/bench-mass-quote.md).
 */
function secondText(second: number): string {
  const days = Math.floor(second / 86_400);
  const inDay = second - days * 86_400;
  const z = days + 719_468; // days since 0000-03-01
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097; // [0, 146096]
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)); // [0, 365], from March 1
  const mp = Math.floor((5 * doy + 2) / 153); // [0, 11], March = 0
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(inDay / 3_600);
  const minute = Math.floor(inDay / 60) - hour * 60;
  const sec = inDay - Math.floor(inDay / 60) * 60;
  return `${TWO[Math.floor(year / 100)]}${TWO[year % 100]}-${TWO[month]}-${TWO[day]}T${TWO[hour]}:${TWO[minute]}:${TWO[sec]}.`;
}

/** Same, for nullable time stamps; NaN leaves as null. */
export function isoOrNull(ms: Millis | null | undefined): string | null {
  return ms === null || ms === undefined || Number.isNaN(ms) ? null : isoMillis(ms);
}
