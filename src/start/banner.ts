// The start banner: what a person needs after `npm start` — the address, the store (and whether
// the demo runs on it), where the operator credentials are, and a curl that gets a token with them.
// Framed so it stands out from the log lines above it; colour only on a terminal.

import type { Config } from '../config.ts';
import { redactDatabaseUrl } from '../config.ts';
import { packageVersion } from './version.ts';

export interface BannerInput {
  config: Config;
  url: string;
  /** The operator credentials file, when the operator client is not set by environment. */
  credentialsFile: string;
  legacyPort?: number;
  demoRunning: boolean;
}

export function bannerLines(b: BannerInput): string[] {
  const { config, url } = b;
  const store = config.databaseUrl
    ? `PostgreSQL ${redactDatabaseUrl(config.databaseUrl)}`
    : `embedded PGlite in ${config.dataDir}/pg`;
  const demo = b.demoRunning
    ? `on (demo slate${config.demoLive ? ', living games' : ''})`
    : config.databaseUrl
      ? 'OFF — DATABASE_URL is set, so the store holds only your data (TICKBOOK_DEMO=true seeds the demo)'
      : 'off (TICKBOOK_DEMO=false)';
  const credsFile = JSON.stringify(b.credentialsFile);
  const lines = [
    `Tickbook ${packageVersion()} is ready at ${url}`,
    '',
    `  Store        ${store}`,
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
  lines.push(`  A trader client:  npx tickbook clients create --name my-bot${cliUrl}`);
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
