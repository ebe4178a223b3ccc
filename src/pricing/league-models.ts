// Per-league parameters of the same-game model (docs/pricing.md): the final home margin M and total
// T of a game are taken as a bivariate normal. Only the means vary from game to game (fitted to
// that game's books, see fit.ts); the spread of outcomes around them and their correlation are
// properties of the sport, set here and overridable through PricingParams.
//
// Where the defaults come from (rounded; the model is a normal approximation of integer scores,
// so "key numbers" such as 3 and 7 in American football are not represented):
// - sdMargin: standard deviation of the final margin around the closing point spread. NFL ≈ 13.5
//   (H. Stern, "On the probability of winning a football game", The American Statistician 45
//   (1991): 13.86 over 1981–84 seasons; later seasons ≈ 13–13.5). College football, basketball,
//   baseball (runs), hockey and soccer (goals) use the commonly quoted magnitudes below.
// - sdTotal: standard deviation of the final total around the closing total line, same sources'
//   magnitudes (NBA totals ≈ 18–19 points, MLB ≈ 4.4 runs, NHL ≈ 2.3 goals).
// - rhoFavourite: correlation between the *favourite's* margin and the total. High-scoring games
//   tend to be the ones where the stronger side runs away with it, which is why books price
//   "favourite covers + over" above the independent product; a pick'em game has no favourite and
//   hence no such effect. The correlation of (home margin, total) used for a game is therefore
//   rhoFavourite × (2Φ(3 μ_M / σ_M) − 1): its sign follows the fitted favourite and it fades
//   smoothly to 0 as the game approaches a pick'em (see parlay.ts).

export interface LeagueModel {
  /** Standard deviation of the home margin, points/runs/goals. */
  sdMargin: number;
  /** Standard deviation of the total. */
  sdTotal: number;
  /** Correlation between the favourite's margin and the total, in (−1, 1). */
  rhoFavourite: number;
}

export const DEFAULT_LEAGUE_MODELS: Readonly<Record<string, LeagueModel>> = Object.freeze({
  NFL: { sdMargin: 13.5, sdTotal: 13.5, rhoFavourite: 0.12 },
  NCAAF: { sdMargin: 16.5, sdTotal: 16.5, rhoFavourite: 0.18 },
  NBA: { sdMargin: 12.0, sdTotal: 18.5, rhoFavourite: 0.08 },
  NCAAB: { sdMargin: 10.5, sdTotal: 14.0, rhoFavourite: 0.1 },
  MLB: { sdMargin: 4.2, sdTotal: 4.4, rhoFavourite: 0.25 },
  NHL: { sdMargin: 2.4, sdTotal: 2.3, rhoFavourite: 0.22 },
  MLS: { sdMargin: 1.7, sdTotal: 1.65, rhoFavourite: 0.22 },
  EPL: { sdMargin: 1.75, sdTotal: 1.7, rhoFavourite: 0.25 },
});

/** Everything the pricer can be tuned with. Config supplies margin and maxLegs (src/config.ts). */
export interface PricingParams {
  /** House margin as a fraction of the shaded price (0.05 = 5 %), config.parlayMargin. */
  margin: number;
  /** Most legs one request may hold, config.parlayMaxLegs. */
  maxLegs: number;
  /** Same-game model per league code; a league missing here has no same-game model. */
  leagues: Readonly<Record<string, LeagueModel>>;
}

export const DEFAULT_PRICING_PARAMS: PricingParams = Object.freeze({
  margin: 0.05,
  maxLegs: 12,
  leagues: DEFAULT_LEAGUE_MODELS,
});

/** Params from the defaults with some fields replaced (league entries merge per league). */
export function pricingParams(over: Partial<PricingParams> = {}): PricingParams {
  return {
    margin: over.margin ?? DEFAULT_PRICING_PARAMS.margin,
    maxLegs: over.maxLegs ?? DEFAULT_PRICING_PARAMS.maxLegs,
    leagues: { ...DEFAULT_LEAGUE_MODELS, ...(over.leagues ?? {}) },
  };
}
