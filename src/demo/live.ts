// The living demo: one pure step function the lead calls on a timer.
//
//   liveStep(reader, state, now, rng) → commands
//
// Given the exchange as it is (reader), the demo's own memory (state), the time and a random
// source, it returns the commands that move the demo forward; the caller submits them, in order,
// and awaits them before the next step. `state` is mutated in place and holds only what the
// exchange does not (the in-play random walks, delays, how far the fixture grid was generated), so
// a fresh state on a restarted server picks up where the exchange is. Each step:
//   1. the demo trader lifts a few market-maker bids (IOC), so fills, volume and `last` move;
//   2. lifecycles: INITIAL → OPEN_PREGAME 13 days out; OPEN_PREGAME → CLOSED_PREGAME 5 minutes
//      before the start; → OPEN_INGAME at the start (the engine drains resting orders); now and
//      then OPEN_INGAME → DELAYED → OPEN_INGAME; after the league's typical duration a score drawn
//      from the in-play state, FINAL, markets CLOSED and settled from it;
//   3. in play, the score so far follows the walk (below) and the clock the progress (game-clock.ts); before the start, now and then a game's line moves (news, flow: a small mean-reverting
//      shift of the expected margin and total), so pre-game books move too; in play, the fair line
//      is a random walk: the home margin M(τ) = μ_M + σ_M·W(τ) over game
//      progress τ ∈ [0, 1], so the final margin is M(1) and the fair price at τ is
//      Φ((M(τ) + s) / (σ_M √(1 − τ))) — prices drift and sharpen as the game runs out;
//   4. the market maker re-quotes every quotable market whose ladder is not the intended one;
//   5. new fixtures are added day by day so the next two weeks always hold ≥ 300 open events.

import { leagueInfo } from '../catalog/leagues.ts';
import { randNormal } from '../catalog/rng.ts';
import type { CommandInput, Rng } from '../catalog/types.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import {
  type EventRecord,
  type Id,
  type MarketRecord,
  type Qty,
  TRADABLE_EVENT_STATUSES,
} from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { titleChance } from './futures.ts';
import { scoreAndClock } from './game-clock.ts';
import { fairFor } from './game-markets.ts';
import {
  type LiveGameState,
  liveLine,
  type PregameShift,
  pregameLine,
  progress,
  runningScore,
} from './live-lines.ts';
import { extendSchedule } from './live-schedule.ts';
import {
  DEFAULT_QUOTE,
  type DemoAccounts,
  demoAccounts,
  type QuoteConfig,
  quoteMarket,
  requote,
} from './market-maker.ts';
import { type GameLine, gameLine, leagueModel, pMoney, scoreFromMarginTotal } from './rating-model.ts';
import { localDay, SCHEDULED_LEAGUES } from './schedule.ts';
import { marketResult } from './settle.ts';
import { finishGameCommands, HOUR, MINUTE, TIMING } from './slate.ts';

export { liveOptions } from './live-options.ts';

export interface LiveConfig {
  /** Keep fixtures listed this far ahead. */
  horizonMs: number;
  /** Open (not FINAL/CANCELED) events wanted within the horizon; more days are added below it. */
  minUpcoming: number;
  /** Chance per hour of play that a running game is suspended (DELAYED). */
  delaysPerHour: number;
  delayMinMs: number;
  delayMaxMs: number;
  /** Expected demo-trader orders per step. */
  tradesPerStep: number;
  /** Multiplies the in-play volatility (1 = the rating model's own). */
  driftScale: number;
  /** Mean pre-game line moves per game per hour (0: pre-game lines stay at the model's). */
  pregameMovesPerHour: number;
  /** One pre-game move's size, as a fraction of the line's standard deviations. */
  pregameMoveSd: number;
  quote: QuoteConfig;
  /** Leagues whose fixtures are added (default: all); the slate's `leagues` option, for the same reason. */
  leagues?: readonly string[];
}

export const DEFAULT_LIVE_CONFIG: LiveConfig = {
  horizonMs: TIMING.horizonMs,
  minUpcoming: 300,
  delaysPerHour: 0.15,
  delayMinMs: 5 * MINUTE,
  delayMaxMs: 20 * MINUTE,
  tradesPerStep: 3,
  driftScale: 1,
  // About one move per game every ten minutes, a few ticks each: a board of forty pre-game games
  // shows a price change every quarter minute, and the market maker re-quotes half a game a second
  // across a 300-game slate.
  pregameMovesPerHour: 6,
  pregameMoveSd: 0.05,
  quote: DEFAULT_QUOTE,
};

/** The pre-game move settings of a config, as the line module takes them. */
const pregameMoves = (c: LiveConfig) => ({ perHour: c.pregameMovesPerHour, sd: c.pregameMoveSd });

export interface LiveState {
  seed: string;
  /** Step counter; with `epoch`, part of every order id the step mints. */
  round: number;
  /**
   * The `now` the state was created at. A restarted server starts a new state at round 0; the
   * epoch keeps its order ids distinct from those of the previous run.
   */
  epoch: number;
  accounts: DemoAccounts;
  config: LiveConfig;
  games: Record<Id, LiveGameState>;
  /** Pre-game shifts of each game's expected margin and total from the model's line. */
  pregame: Record<Id, PregameShift>;
  /** The `now` of the previous step (how much time a step's chance of a pre-game move covers). */
  lastStepAt: number;
  /** Per league, the last local day whose fixtures have been emitted. */
  generatedThrough: Record<string, number>;
  /** Market-maker ladders found resting as intended, with the book sequence numbers then (see requote). */
  verified: Map<Id, string>;
}

export function createLiveState(opts: {
  seed: string | number;
  now: number;
  config?: Partial<LiveConfig>;
}): LiveState {
  const config = { ...DEFAULT_LIVE_CONFIG, ...opts.config };
  const generatedThrough: Record<string, number> = {};
  // The slate covers up to now + horizon; re-generating its last day lets the first step add the
  // fixtures of that day the slate cut off (existing ones are recognised by id and skipped).
  for (const code of SCHEDULED_LEAGUES) {
    generatedThrough[code] = localDay(leagueInfo(code)!.timeZone, opts.now + config.horizonMs) - 1;
  }
  return {
    seed: String(opts.seed),
    round: 0,
    epoch: opts.now,
    accounts: demoAccounts(opts.seed),
    config,
    games: {},
    pregame: {},
    lastStepAt: opts.now,
    generatedThrough,
    verified: new Map(),
  };
}

const UNSETTLED = (m: MarketRecord | undefined): m is MarketRecord =>
  m !== undefined && m.status !== 'SETTLED';

export function liveStep(reader: ExchangeReader, state: LiveState, now: number, rng: Rng): CommandInput[] {
  state.round += 1;
  // A late or first step covers at most ten seconds of pre-game moves, not a burst of them.
  const stepMs = Math.min(10_000, Math.max(0, now - state.lastStepAt));
  state.lastStepAt = now;
  const { seed, config } = state;
  const round = `${state.epoch}.${state.round}`;
  const mm = state.accounts.marketMaker;
  const quoteOpts = { seed, round, accountId: mm, config: config.quote };

  const trades: CommandInput[] = [];
  const lifecycle: CommandInput[] = [];
  const fresh: CommandInput[] = [];
  /** Fair prices of markets on events whose status does not change in this step. */
  const steady = new Map<Id, number>();
  const liveMarkets: Id[] = [];
  const quoteFresh = (markets: MarketRecord[], line: GameLine) => {
    for (const m of markets)
      if (m.status === 'OPEN')
        fresh.push(
          ...quoteMarket(
            { marketId: m.id, outcomeIds: m.outcomeIds },
            fairFor(line, m.type, m.strike),
            quoteOpts,
          ),
        );
  };
  const setStatus = (eventId: Id, status: EventRecord['status']) =>
    lifecycle.push({ type: 'SetEventStatus', eventId, status });

  let upcoming = 0;
  for (const e of reader.eventsSorted()) {
    if (
      e.status !== 'FINAL' &&
      e.status !== 'CANCELED' &&
      e.scheduledStart >= now &&
      e.scheduledStart <= now + config.horizonMs
    ) {
      upcoming++;
    }
    // Finished events pile up while the server runs and need nothing once settled: skip them
    // before any per-event work (this runs every demo tick).
    if (e.status === 'CANCELED') continue;
    const markets = e.marketIds.map((id) => reader.market(id)).filter(UNSETTLED);
    if (e.status === 'FINAL' && markets.length === 0) continue;
    if (e.type !== 'Game' || !e.gameId) {
      if (TRADABLE_EVENT_STATUSES.includes(e.status)) {
        for (const m of markets) steady.set(m.id, futureFair(reader, seed, e, m));
      }
      continue;
    }
    const game = reader.game(e.gameId);
    if (!game) continue;
    const model = leagueModel(e.league);
    const durationMs = model.durationMin * MINUTE;
    const base = gameLine(seed, e.league, game.homeTeamId, game.awayTeamId);
    const startLive = (): void => {
      setStatus(e.id, 'OPEN_INGAME');
      // Play starts from the line the pre-game moves left.
      const opening = pregameLine(base, state.pregame, pregameMoves(config), e.id, 0, rng);
      delete state.pregame[e.id];
      const g: LiveGameState = {
        m: opening.muMargin,
        t: opening.muTotal,
        at: now,
        delayedMs: 0,
        pausedAt: null,
        resumeAt: null,
      };
      state.games[e.id] = g;
      quoteFresh(markets, liveLine(base, g, progress(e, g, durationMs, now)));
    };

    switch (e.status) {
      case 'INITIAL':
        if (e.scheduledStart - now <= TIMING.openAheadMs) {
          setStatus(e.id, 'OPEN_PREGAME');
          quoteFresh(markets, base);
        }
        break;
      case 'OPEN_PREGAME':
        if (e.scheduledStart - now <= TIMING.closeBeforeMs) {
          setStatus(e.id, 'CLOSED_PREGAME');
          if (e.scheduledStart <= now) startLive();
        } else {
          const line = pregameLine(base, state.pregame, pregameMoves(config), e.id, stepMs, rng);
          for (const m of markets) if (m.status === 'OPEN') steady.set(m.id, fairFor(line, m.type, m.strike));
        }
        break;
      case 'CLOSED_PREGAME':
        if (e.scheduledStart <= now) startLive();
        break;
      case 'OPEN_INGAME': {
        let g = state.games[e.id];
        if (!g) {
          g = { m: base.muMargin, t: base.muTotal, at: now, delayedMs: 0, pausedAt: null, resumeAt: null };
          state.games[e.id] = g;
        }
        // Advance the walk over the progress made since the last step.
        const tau0 = progress(e, g, durationMs, g.at);
        const tau = progress(e, g, durationMs, now);
        const dp = tau - tau0;
        if (dp > 0) {
          g.m += base.sdMargin * config.driftScale * Math.sqrt(dp) * randNormal(rng);
          g.t = Math.max(0, g.t + base.sdTotal * config.driftScale * Math.sqrt(dp) * randNormal(rng));
        }
        g.at = now;
        const sofar = runningScore(e.league, g, tau, game);
        if (tau >= 1) {
          const line = liveLine(base, g, tau);
          const drawn = scoreFromMarginTotal(e.league, g.m, g.t, rng, pMoney(line));
          // A final score never takes back points already on the board.
          const score = {
            homeScore: Math.max(drawn.homeScore, game.homeScore ?? 0),
            awayScore: Math.max(drawn.awayScore, game.awayScore ?? 0),
          };
          lifecycle.push(
            ...finishGameCommands(
              e.league,
              e.id,
              game.id,
              markets.map((m) => ({
                marketId: m.id,
                type: m.type,
                strike: m.strike,
                outcomeIds: m.outcomeIds,
              })),
              score,
            ),
          );
          delete state.games[e.id];
        } else if (delayDraw(rng, config, dp, durationMs)) {
          setStatus(e.id, 'DELAYED');
          g.pausedAt = now;
          g.resumeAt = now + config.delayMinMs + rng() * (config.delayMaxMs - config.delayMinMs);
        } else {
          const scored = scoreAndClock(e.league, game, sofar, tau);
          if (scored) lifecycle.push(scored);
          const line = liveLine(base, g, tau);
          for (const m of markets) {
            if (m.status !== 'OPEN') continue;
            steady.set(m.id, fairFor(line, m.type, m.strike));
            liveMarkets.push(m.id);
          }
        }
        break;
      }
      case 'DELAYED': {
        let g = state.games[e.id];
        if (!g) {
          // Restarted demo: keep the suspension a while before resuming.
          g = {
            m: base.muMargin,
            t: base.muTotal,
            at: now,
            delayedMs: 0,
            pausedAt: now,
            resumeAt: now + config.delayMinMs,
          };
          state.games[e.id] = g;
        }
        if (g.resumeAt === null || now >= g.resumeAt) {
          g.delayedMs += now - (g.pausedAt ?? now);
          g.pausedAt = null;
          g.resumeAt = null;
          g.at = now;
          setStatus(e.id, 'OPEN_INGAME'); // the engine drains resting orders again
          quoteFresh(markets, liveLine(base, g, progress(e, g, durationMs, now)));
        }
        break;
      }
      case 'FINAL': {
        // Markets a previous step could not settle (for instance a rejected batch): finish them.
        const score =
          game.homeScore !== null && game.awayScore !== null
            ? { homeScore: game.homeScore, awayScore: game.awayScore }
            : null;
        for (const m of markets) {
          if (m.status === 'OPEN')
            lifecycle.push({ type: 'SetMarketStatus', marketId: m.id, status: 'CLOSED' });
          lifecycle.push({
            type: 'SettleMarket',
            marketId: m.id,
            result: score
              ? marketResult(e.league, { type: m.type, strike: m.strike, outcomeIds: m.outcomeIds }, score)
              : 'PUSH',
          });
        }
        break;
      }
      default:
        break;
    }
  }

  // 1. The demo trader takes liquidity on steady markets (live ones half of the time).
  const steadyIds = [...steady.keys()];
  const n = Math.floor(config.tradesPerStep) + (rng() < config.tradesPerStep % 1 ? 1 : 0);
  for (let i = 0; i < n && steadyIds.length > 0; i++) {
    const pool = liveMarkets.length > 0 && rng() < 0.5 ? liveMarkets : steadyIds;
    const marketId = pool[Math.floor(rng() * pool.length)]!;
    const m = reader.market(marketId)!;
    const side = rng() < 0.5 ? 0 : 1;
    const currency = rng() < 0.7 ? 'CASH' : 'COIN';
    const best = reader.bestBid(m.outcomeIds[1 - side]!, currency);
    if (!best) continue;
    const take = best.qty * (0.1 + 0.9 * rng());
    const qty: Qty =
      currency === 'CASH' ? Math.max(100, Math.floor(take / 100) * 100) : Math.max(1, Math.floor(take));
    trades.push({
      type: 'PlaceOrder',
      orderId: uuidFor(seed, 'trade', round, i),
      accountId: state.accounts.trader,
      outcomeId: m.outcomeIds[side]!,
      currency,
      price: 1000 - best.price, // exactly the price that lifts the best bid on the other outcome
      qty,
      tif: 'IOC',
    });
  }

  // 4. Market maker: re-quote steady markets whose ladder is not the intended one.
  const quotes = requote(
    reader,
    steady,
    round,
    { seed, accountId: mm, config: config.quote },
    state.verified,
  );

  // 5. New fixtures.
  const added = extendSchedule(reader, { ...config, seed }, state.generatedThrough, now, upcoming, quoteOpts);

  return [...trades, ...lifecycle, ...fresh, ...quotes, ...added];
}

/** Extra delay chance for a step that covered `dp` of the game (delays per hour of play). */
function delayDraw(rng: Rng, config: LiveConfig, dp: number, durationMs: number): boolean {
  const hours = (dp * durationMs) / HOUR;
  return rng() < 1 - Math.exp(-config.delaysPerHour * hours);
}

function futureFair(reader: ExchangeReader, seed: string, e: EventRecord, m: MarketRecord): number {
  const teamId = reader.outcome(m.outcomeIds[0])?.competitorTeamId;
  if (m.type !== 'YES_NO' || !teamId) return 0.5;
  return titleChance(seed, e.league, teamId, reader.teams(e.league));
}
