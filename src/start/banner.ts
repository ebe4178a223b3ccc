// The start banner: what a person needs after `npm start` — the address, the store (and whether
// the demo runs on it), where the operator credentials are, and a curl that gets a token with them.
// Framed so it stands out from the log lines above it; colour only on a terminal.

import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { redactDatabaseUrl } from '../config.ts';
import { usePrettyLogs } from './log-output.ts';
import { packageVersion } from './version.ts';

/** What the process is on its store: the one process of an embedded store, or a cluster role. */
export type BannerRole = 'embedded' | 'leader' | 'replica';

/** The demo as it is on the store the process serves, not as configured. */
export interface DemoState {
  /** The store holds the demo slate (its market maker's account exists). */
  slate: boolean;
  /** This process plays the demo's games (living demo on a process that writes). */
  living: boolean;
}

export interface BannerInput {
  config: Config;
  url: string;
  /** The operator credentials file, when the operator client is not set by environment. */
  credentialsFile: string;
  legacyPort?: number;
  role: BannerRole;
  /** A replica: where it forwards commands. */
  leaderUrl?: string;
  demo: DemoState;
}

function roleText(b: BannerInput): string {
  if (b.role === 'embedded') return 'embedded store, one process (it writes and serves)';
  if (b.role === 'leader') return 'leader (holds the writer lock: runs the sequencer; replicas follow it)';
  return `replica (follows the journal; forwards commands to the leader${b.leaderUrl ? ` at ${b.leaderUrl}` : ''})`;
}

/** The Demo line: what the store holds and who plays it, with the setting that changes it. */
export function demoText(config: Config, role: BannerRole, demo: DemoState): string {
  if (demo.slate) {
    if (role === 'replica') return 'on (demo slate in the store; its games are played by the leader)';
    return demo.living
      ? 'on (demo slate, living games)'
      : 'on (demo slate; games do not move: DEMO_LIVE=false)';
  }
  if (config.demo) {
    return 'off — the store already held data, and the demo seeds only an empty store';
  }
  return config.databaseUrl
    ? 'OFF — DATABASE_URL is set, so the store holds only your data (TICKBOOK_DEMO=true seeds the demo into an empty store)'
    : 'off (TICKBOOK_DEMO=false)';
}

export function bannerLines(b: BannerInput): string[] {
  const { config, url } = b;
  const store = config.databaseUrl
    ? `PostgreSQL ${redactDatabaseUrl(config.databaseUrl)}`
    : `embedded PGlite in ${config.dataDir}/pg`;
  const demo = demoText(config, b.role, b.demo);
  const credsFile = JSON.stringify(b.credentialsFile);
  const lines = [
    `Tickbook ${packageVersion()} is ready at ${url}`,
    '',
    `  Store        ${store}`,
    `  Role         ${roleText(b)}`,
    `  Demo         ${demo}`,
    ...(config.ui ? [`  Browser UI   ${url}/ui/   (explorer, parlay slip, sandbox trading)`] : []),
    `  API docs     ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
    `  Health       ${url}/readyz   Metrics: ${url}/metrics`,
  ];
  if (b.legacyPort !== undefined) lines.push(`  Legacy host  port ${b.legacyPort} (/oauth/token)`);
  lines.push('');
  if (config.adminClientId) {
    lines.push(
      '  Operator     TICKBOOK_ADMIN_CLIENT_ID / TICKBOOK_ADMIN_CLIENT_SECRET',
      '  Get a token:',
      `    curl -s ${url}/nbx/v1/auth/emm-token -d grant_type=client_credentials \\`,
      '      -u "$TICKBOOK_ADMIN_CLIENT_ID:$TICKBOOK_ADMIN_CLIENT_SECRET"',
    );
  } else {
    lines.push(
      `  Operator     credentials in ${b.credentialsFile} (mode 0600)`,
      '  Get a token:',
      `    curl -s ${url}/nbx/v1/auth/emm-token -d grant_type=client_credentials \\`,
      `      -u "$(node -p 'const c=require(${credsFile}); c.clientId+":"+c.clientSecret')"`,
    );
  }
  const cliUrl = config.port === 8080 && config.host === '127.0.0.1' ? '' : ` --url ${url}`;
  lines.push(`  A trader client:  node bin/tickbook.js clients create --name my-bot${cliUrl}`);
  return lines;
}

/** The banner framed by rules; bold title on a terminal. */
export function renderBanner(lines: string[], color: boolean): string {
  const width = Math.min(100, Math.max(...lines.map((l) => l.length)) + 2);
  const rule = '═'.repeat(width);
  const [title, ...rest] = lines;
  const head = color ? `\x1b[1;32m${title}\x1b[0m` : (title ?? '');
  return ['', rule, ` ${head}`, ...rest.map((l) => (l === '' ? '' : ` ${l}`)), rule, ''].join('\n');
}

/**
 * Writes the banner where it does not break the log stream. With pretty logs (a terminal) it is
 * the framed text on stdout, below the log lines. With JSON logs stdout is a stream of JSON lines
 * a collector parses, so the banner is one log record there (`tickbook ready`, its lines in
 * `banner`), and the framed text goes to stderr only when stderr is a terminal for a person to read.
 */
export function writeBanner(
  b: BannerInput,
  log: Pick<Logger, 'info'>,
  format: Config['logFormat'],
  out: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stdout,
  err: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stderr,
): void {
  const lines = bannerLines(b);
  if (usePrettyLogs(format, out.isTTY)) {
    out.write(`${renderBanner(lines, out.isTTY === true)}\n`);
    return;
  }
  log.info(
    {
      url: b.url,
      role: b.role,
      demo: demoText(b.config, b.role, b.demo),
      banner: lines.filter((l) => l !== ''),
    },
    `tickbook ready at ${b.url}`,
  );
  if (err.isTTY === true) err.write(`${renderBanner(lines, true)}\n`);
}
