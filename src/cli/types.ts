// The CLI's command table types. A command is a name (one or two words: `migrate`, `clients
// create`), a summary for --help, its options (node:util parseArgs) and a run function that gets
// the parsed values and a context; main.ts does the dispatch. New commands (seed, import, settle)
// are one more entry in commands/index.ts.

import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Store } from '../store/types.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface CliContext {
  /** Parsed lazily: `--help` and usage errors work without a valid environment. */
  config(): Config;
  /** Opens the configured store and applies pending migrations; closed by main after the command. */
  openStore(): Promise<Store>;
  /** Migrations applied by openStore in this run. */
  lastMigrated?: string[];
  out(text: string): void;
  err(text: string): void;
  /** --json was given: print machine-readable output. */
  json: boolean;
  env: Record<string, string | undefined>;
}

export interface CommandArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  /** Usage line after the command name, e.g. `<clientId> [--grace SECONDS]`. */
  usage?: string;
  options?: OptionSpec;
  /** Returns the exit code (0 success). Long-running commands (start) resolve when started. */
  run(args: CommandArgs, ctx: CliContext): Promise<number>;
}

/** A failure to report as `error: …` with exit code 1 (2 for usage errors). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
