// Ledger amounts on the wire: a decimal string with exactly 5 decimals (MONEY_PER_UNIT), written
// from the integer so no double rounding can creep in (src/exchange/units.ts owns the unit).

import type { Money } from '../exchange/types.ts';
import { MONEY_PER_UNIT } from '../exchange/units.ts';

const DECIMALS = String(MONEY_PER_UNIT).length - 1;

/** -173_842_000 → "-1738.42000". */
export function moneyToDecimal(m: Money): string {
  const neg = m < 0;
  const abs = Math.abs(m);
  const whole = Math.floor(abs / MONEY_PER_UNIT);
  const frac = String(abs % MONEY_PER_UNIT).padStart(DECIMALS, '0');
  return `${neg ? '-' : ''}${whole}.${frac}`;
}
