// Market-maker protection's config and the reader's view of it (docs/exchange.md "Market-maker
// protection"), re-exported by types.ts; on its own (no imports) so types.ts stays in its size.

/** The longest MMP interval and freeze: one day (a game's length, with margin). */
export const MMP_MAX_MS = 86_400_000;

/** Quantities in MCU (payout units), times in ms; a limit 0 is off (not both). */
export interface MmpConfig {
  /** Fills of protected orders within this many ms before the command accumulate. */
  intervalMs: number;
  /** Breach when the quantity filled within the interval reaches this. */
  qtyLimit: number;
  /** Breach when |outcome-0 quantity − outcome-1 quantity| filled within the interval reaches this. */
  netLimit: number;
  /** How long a breach freezes protected orders on the event; 0: until ResetMmp. */
  freezeMs: number;
}

/** An account's MMP as the reader shows it: its configs, and its freezes (until null: until reset). */
export interface MmpView {
  configs: ({ eventId: string | null; currency: 'CASH' | 'COIN' } & MmpConfig)[];
  frozen: { eventId: string; until: number | null }[];
}
