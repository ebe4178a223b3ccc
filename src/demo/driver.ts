// The demo as a participant of the exchange (docs/architecture.md "Layers"): it reaches the
// exchange only through the port every other client uses (reads and commands), so the runtime
// knows nothing of it. On a demo install the composition root (src/main.ts) starts one: it seeds
// the demo slate and its liquidity on an empty store, then steps the living demo every second
// while this process writes (a replica's driver waits for a promotion). The CLI's `seed` command
// calls seedDemo() on the same port.

import { rngFor } from '../catalog/rng.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandResult } from '../exchange/types.ts';
import type { Log } from '../observability/log.ts';
import { createLiveState, type LiveState, liveStep } from './live.ts';
import { demoAccounts, quoteSlate } from './market-maker.ts';
import { demoParlayQuotes } from './parlay-maker.ts';
import { buildDemoSlate } from './slate.ts';

/** What the demo needs of the exchange: the live state to read and commands to submit. */
export interface DemoExchange {
  reader(): ExchangeReader;
  /** Several commands, one commit, one result each in order (ExchangePort.submitMany). */
  submitMany(cmds: CommandInput[]): Promise<CommandResult[]>;
}

/** Demo seeding goes through the sequencer in chunks, so each commit stays a reasonable size. */
const SEED_CHUNK = 2000;
const STEP_MS = 1000;
/** How often the demo's market maker looks for new parlay requests to quote (docs/parlays.md). */
const PARLAY_QUOTE_MS = 250;

/** True when the catalog holds nothing yet (a fresh store). */
export function catalogEmpty(exchange: DemoExchange): boolean {
  return exchange.reader().leagues().length === 0;
}

/**
 * The demo slate and its liquidity, submitted like any operator's commands. Returns the number of
 * commands accepted; a rejected one is logged and skipped.
 */
export async function seedDemo(
  exchange: DemoExchange,
  opts: { seed: number; now: number; log: Log; onProgress?: (done: number, total: number) => void },
): Promise<number> {
  const slate = buildDemoSlate({ seed: opts.seed, now: opts.now });
  const cmds: CommandInput[] = [...slate.commands, ...quoteSlate(slate, opts.seed)];
  let accepted = 0;
  for (let i = 0; i < cmds.length; i += SEED_CHUNK) {
    const chunk = cmds.slice(i, i + SEED_CHUNK);
    const rs = await exchange.submitMany(chunk);
    rs.forEach((r, j) => {
      if (r.ok) accepted++;
      else opts.log.warn({ code: r.code, message: r.message, type: chunk[j]!.type }, 'demo command rejected');
    });
    opts.onProgress?.(Math.min(i + SEED_CHUNK, cmds.length), cmds.length);
  }
  return accepted;
}

export interface DemoDriverDeps {
  exchange: DemoExchange;
  /** The clock that stamps the exchange's commands (accelerated with DEMO_SPEED). */
  clock: () => number;
  seed: number;
  /** Step the living demo (DEMO_LIVE). */
  live: boolean;
  log: Log;
  /** True while this process writes; the driver submits nothing otherwise. */
  leads?: () => boolean;
}

export class DemoDriver {
  private state: LiveState | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private stopped = false;
  private quoteTimer: NodeJS.Timeout | undefined;
  private quoting = false;

  constructor(private readonly deps: DemoDriverDeps) {}

  private leads(): boolean {
    return this.deps.leads?.() ?? true;
  }

  /** True while the living demo runs here: configured and this process writes. */
  get living(): boolean {
    return this.deps.live && this.leads();
  }

  /** Seeds the demo slate when this process writes to an empty store; returns the commands accepted. */
  async seedIfEmpty(): Promise<number> {
    const { exchange, log, seed, clock } = this.deps;
    if (!this.leads() || !catalogEmpty(exchange)) return 0;
    log.info({ seed }, 'empty store: creating the demo slate');
    const n = await seedDemo(exchange, {
      seed,
      now: clock(),
      log,
      onProgress: (done, total) => {
        if (done === total || done % 10_000 === 0) log.info({ done, total }, 'demo slate');
      },
    });
    log.info({ commands: n }, 'demo slate ready');
    return n;
  }

  /** Starts the demo maker's parlay quotes, and stepping the living demo (when configured) every second. */
  start(): void {
    if (this.stopped) return;
    if (this.quoteTimer === undefined) {
      this.quoteTimer = setInterval(() => void this.quoteParlays(), PARLAY_QUOTE_MS);
      this.quoteTimer.unref();
    }
    if (!this.deps.live || this.timer !== undefined) return;
    if (this.leads()) this.enableLive();
    this.timer = setInterval(() => void this.step(), STEP_MS);
    this.timer.unref();
  }

  /** Creates the living demo's state now; step() creates it on first use otherwise. */
  enableLive(): void {
    this.state ??= createLiveState({ seed: this.deps.seed, now: this.deps.clock() });
  }

  /** One step of the living demo (the timer, or a test driving the clock by hand). */
  async step(): Promise<void> {
    if (this.busy || this.stopped) return;
    if (!this.leads()) {
      // Another process writes meanwhile: its demo plays the games, and this one starts afresh
      // (a new state, new order ids) when it leads again.
      this.state = undefined;
      return;
    }
    this.busy = true;
    try {
      this.enableLive();
      const live = this.state!;
      const { exchange, clock } = this.deps;
      const cmds = liveStep(exchange.reader(), live, clock(), rngFor(live.seed, 'live', live.round));
      if (cmds.length > 0) await exchange.submitMany(cmds);
    } catch (err) {
      this.deps.log.error({ err }, 'living demo step failed');
    } finally {
      this.busy = false;
    }
  }

  /** The demo's market maker answers new parlay requests at its own prices (parlay-maker.ts). */
  async quoteParlays(): Promise<void> {
    if (this.quoting || this.stopped || !this.leads()) return;
    this.quoting = true;
    try {
      const { exchange, clock, seed } = this.deps;
      const cmds = demoParlayQuotes(exchange.reader(), clock(), demoAccounts(seed).marketMaker);
      if (cmds.length > 0) await exchange.submitMany(cmds);
    } catch (err) {
      this.deps.log.error({ err }, 'demo parlay quotes failed');
    } finally {
      this.quoting = false;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.quoteTimer !== undefined) clearInterval(this.quoteTimer);
    this.timer = undefined;
  }
}
