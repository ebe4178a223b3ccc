// `tickbook` — the command-line entry (bin/tickbook.js runs this through tsx). Commands come from
// commands/index.ts; `--json` gives machine-readable output, `--help` the usage.

import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { StartError } from '../start/start-error.ts';
import { packageVersion } from '../start/version.ts';
import { openStore } from '../store/index.ts';
import { type Store, WriterLockError } from '../store/types.ts';
import { COMMANDS } from './commands/index.ts';
import { type CliContext, CliError, type Command } from './types.ts';

export interface MainIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  env?: Record<string, string | undefined>;
  /** Tests pass an already-open store instead of opening DATA_DIR/DATABASE_URL. */
  store?: Store;
}

const GLOBAL_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: tickbook <command> [options] [--json] [--help]    tickbook --version',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Configuration comes from the environment (PORT, DATA_DIR, DATABASE_URL, …; see README).',
    'Client commands call a running server: --url, else http://$HOST:$PORT when PORT or HOST is set,',
    'else the address the server recorded in its credentials file ($DATA_DIR/admin-credentials.json),',
    'with the operator credentials from TICKBOOK_ADMIN_CLIENT_ID/_SECRET or that file.',
    'Output: a table or a short line; --json prints the full object.',
  ].join('\n');
}

/** Usage of a command group (`tickbook clients`): the commands whose name starts with the group word. */
function groupUsage(group: string): string | undefined {
  const members = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  if (members.length === 0) return undefined;
  const width = Math.max(...members.map((c) => c.name.length));
  return [
    `usage: tickbook ${group} <command> [options] [--json] [--help]`,
    '',
    'commands:',
    ...members.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

function commandUsage(c: Command): string {
  return `usage: tickbook ${c.name}${c.usage ? ` ${c.usage}` : ''} [--json]\n\n${c.summary}`;
}

/** Finds the command named by the leading words of argv (two words first: `clients create`). */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  for (const n of [2, 1]) {
    const name = words.slice(0, n).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) {
      const rest = [...argv];
      for (const w of words.slice(0, n)) rest.splice(rest.indexOf(w), 1);
      return { command, rest };
    }
  }
  return undefined;
}

/** Runs one CLI invocation; returns the exit code. */
export async function main(argv: string[], io: MainIo = {}): Promise<number> {
  const out = io.stdout ?? ((t: string) => process.stdout.write(`${t}\n`));
  const err = io.stderr ?? ((t: string) => process.stderr.write(`${t}\n`));
  const env = io.env ?? process.env;
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    out(`tickbook ${packageVersion()}`);
    return 0;
  }
  const found = findCommand(argv);
  if (found === undefined) {
    // A group word alone (`tickbook clients`) prints the group's commands: exit 0, as for --help.
    const words = argv.filter((a) => !a.startsWith('-'));
    const group = words.length === 1 && words[0] !== undefined ? groupUsage(words[0]) : undefined;
    if (group !== undefined) {
      out(group);
      return 0;
    }
    const asksHelp =
      argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';
    (asksHelp ? out : err)(
      asksHelp
        ? usage()
        : `unknown command: ${argv.filter((a) => !a.startsWith('-')).join(' ')}\n\n${usage()}`,
    );
    return asksHelp ? 0 : 2;
  }
  const { command, rest } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    err(`${(e as Error).message}\n\n${commandUsage(command)}`);
    return 2;
  }
  if (parsed.values.help) {
    out(commandUsage(command));
    return 0;
  }

  let config: Config | undefined;
  let store: Store | undefined = io.store;
  const ownsStore = io.store === undefined;
  const ctx: CliContext = {
    json: parsed.values.json === true,
    env,
    out,
    err,
    config() {
      config ??= loadConfig(env);
      return config;
    },
    async openStore() {
      store ??= await openStore(ctx.config());
      ctx.lastMigrated = await store.migrate();
      return store;
    },
  };
  try {
    return await command.run({ values: parsed.values, positionals: parsed.positionals }, ctx);
  } catch (e) {
    if (e instanceof CliError) {
      err(`error: ${e.message}`);
      return e.exitCode;
    }
    if (e instanceof WriterLockError) {
      // The store is in use by another process: the same exit code as `npm start` (src/main.ts).
      err(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      err(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof StartError) {
      err(`error: ${e.message}`);
      return e.exitCode;
    }
    err(`error: ${(e as Error).stack ?? String(e)}`);
    return 1;
  } finally {
    if (ownsStore && store !== undefined) await store.close();
  }
}
