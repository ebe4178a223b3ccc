// The living demo's start options from the server's settings (README.md "Configuration"): its
// seed, and how often pre-game lines move (`DEMO_PREGAME_MOVES`, 0 keeps them at the model's).

export function liveOptions(
  settings: { demoSeed: number; demoPregameMoves: number },
  now: number,
): { seed: number; now: number; config: { pregameMovesPerHour: number } } {
  return { seed: settings.demoSeed, now, config: { pregameMovesPerHour: settings.demoPregameMoves } };
}
