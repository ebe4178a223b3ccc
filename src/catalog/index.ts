// The catalog data side, for the lead to wire: everything here is pure and returns commands
// without `ts` (CommandInput); the sequencer stamps time and applies them in order.
//
//   first start / `tickbook seed`:
//     const slate = buildDemoSlate({ seed, now });       // leagues, teams, events + lifecycles
//     submit(slate.commands); submit(quoteSlate(slate, seed));   // demo accounts + liquidity
//     const live = createLiveState({ seed, now });
//   on a timer (living demo):  submit(liveStep(reader, live, Date.now(), Math.random)) — await each batch
//   `tickbook import FILE.json`:  const { commands, errors } = parseSchedule(JSON.parse(text), reader)

export {
  createLiveState,
  DEFAULT_LIVE_CONFIG,
  type LiveConfig,
  type LiveState,
  liveStep,
} from './demo/live.ts';
export {
  DEFAULT_QUOTE,
  type DemoAccounts,
  demoAccounts,
  fundDemoAccounts,
  type QuoteConfig,
  quoteLadder,
  quoteMarket,
  quoteSlate,
  requote,
} from './demo/market-maker.ts';
export {
  buildDemoSlate,
  type DemoGameInfo,
  type DemoSlate,
  type SlateOptions,
  TIMING,
} from './demo/slate.ts';
export { type ImportError, type ImportResult, parseSchedule } from './import.ts';
export { LEAGUE_CODES, LEAGUES, type LeagueInfo, leagueInfo, teamId, teamRecords } from './leagues.ts';
export { rngFor } from './rng.ts';
export type { CommandInput, Rng } from './types.ts';
