// Parlay-boost commands of the CLI, through a running server's admin API (--url, operator
// credentials): boosts create|list|end (docs/parlays.md "Boosts").

import { CliError } from '../types.ts';
import { adminCommand } from './exchange.ts';

interface WireBoost {
  id: string;
  kind: string;
  value: number;
  leagues: string[];
  minLegs: number;
  maxStake: number | null;
  validFrom: string;
  validTo: string;
  claimLimit: number;
  fundingAccountId: string;
  active: boolean;
  fills: number;
  cost: { CASH: number; COIN: number };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function num(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n))
    throw new CliError(`--${name}: a number`);
  return n;
}

export const boostsCreate = adminCommand<WireBoost>(
  'boosts create',
  'Create a parlay boost funded by an operator account; prints the boost id',
  '--kind PERCENT|MULTIPLIER --value N --funding ACCOUNT_ID (--valid-to ISO | --minutes N) [--valid-from ISO] [--leagues NFL,NBA] [--min-legs N] [--max-stake UNITS] [--claim-limit N]\n\n  --value   PERCENT: the share taken off the price, 0 < N < 1 (0.1 = 10 %); MULTIPLIER: the factor\n            on the decimal odds, 1 < N ≤ 100\n  --funding the account that pays each boosted fill’s difference (e.g. the operator client’s\n            accountId from `clients list`)',
  0,
  (_p, args) => {
    const v = args.values;
    const minutes = num(v.minutes, 'minutes');
    const validTo =
      str(v['valid-to']) ??
      (minutes === undefined ? undefined : new Date(Date.now() + minutes * 60_000).toISOString());
    if (validTo === undefined) throw new CliError('boosts create: --valid-to ISO or --minutes N');
    const leagues = str(v.leagues);
    return {
      method: 'POST',
      path: '/admin/v1/boosts',
      body: {
        kind: str(v.kind),
        value: num(v.value, 'value'),
        fundingAccountId: str(v.funding),
        validTo,
        ...(str(v['valid-from']) === undefined ? {} : { validFrom: str(v['valid-from']) }),
        ...(leagues === undefined ? {} : { leagues: leagues.split(',').filter((l) => l !== '') }),
        ...(v['min-legs'] === undefined ? {} : { minLegs: num(v['min-legs'], 'min-legs') }),
        ...(v['max-stake'] === undefined ? {} : { maxStake: num(v['max-stake'], 'max-stake') }),
        ...(v['claim-limit'] === undefined ? {} : { claimLimit: num(v['claim-limit'], 'claim-limit') }),
      },
    };
  },
  // The id alone, so that BOOST=$(tickbook boosts create …) works.
  (b) => b.id,
  {
    kind: { type: 'string' },
    value: { type: 'string' },
    funding: { type: 'string' },
    'valid-to': { type: 'string' },
    'valid-from': { type: 'string' },
    minutes: { type: 'string' },
    leagues: { type: 'string' },
    'min-legs': { type: 'string' },
    'max-stake': { type: 'string' },
    'claim-limit': { type: 'string' },
  },
);

export const boostsList = adminCommand<WireBoost[]>(
  'boosts list',
  'Show every parlay boost with its fills and cost so far',
  '',
  0,
  () => ({ method: 'GET', path: '/admin/v1/boosts' }),
  (boosts) =>
    boosts.length === 0
      ? 'no boosts'
      : boosts
          .map(
            (b) =>
              `${b.id}  ${b.kind} ${b.value}  ${b.active ? 'active' : 'inactive'}  ${b.validFrom} → ${b.validTo}  fills ${b.fills}  cost ${b.cost.CASH} CASH ${b.cost.COIN} COIN`,
          )
          .join('\n'),
);

export const boostsEnd = adminCommand<WireBoost>(
  'boosts end',
  'End a parlay boost now (no more claims or boosted fills)',
  '<boostId>',
  1,
  ([id]) => ({ method: 'POST', path: `/admin/v1/boosts/${encodeURIComponent(id!)}/end` }),
  (b) => `ended boost ${b.id}`,
);
