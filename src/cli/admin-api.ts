// The CLI's client for a running server's admin API: obtains a token with the operator
// credentials (TICKBOOK_ADMIN_CLIENT_ID/_SECRET as parsed by src/config.ts, else
// $DATA_DIR/admin-credentials.json) and calls /admin/v1/… with it on the server serverUrl finds. The CLI changes clients only through the server, so the server's
// in-memory client registry stays the single writer (src/auth/clients.ts).

import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import { type CliContext, CliError, type CommandArgs, type OptionSpec } from './types.ts';

export interface AdminCredentials {
  clientId: string;
  clientSecret: string;
  source: string;
}

export function readAdminCredentials(
  config: Pick<Config, 'adminClientId' | 'adminClientSecret' | 'adminCredentialsFile'>,
): AdminCredentials {
  const { adminClientId: id, adminClientSecret: secret } = config;
  if (id !== undefined && secret !== undefined) {
    return { clientId: id, clientSecret: secret, source: 'environment' };
  }
  const file = config.adminCredentialsFile;
  if (existsSync(file)) {
    const j = JSON.parse(readFileSync(file, 'utf8')) as { clientId?: unknown; clientSecret?: unknown };
    if (typeof j.clientId === 'string' && typeof j.clientSecret === 'string') {
      return { clientId: j.clientId, clientSecret: j.clientSecret, source: file };
    }
    throw new CliError(`${file} does not hold clientId and clientSecret`);
  }
  throw new CliError(
    `no operator credentials: set TICKBOOK_ADMIN_CLIENT_ID and TICKBOOK_ADMIN_CLIENT_SECRET, or run with the DATA_DIR and DATABASE_URL of the server, whose store's credentials file it reads (looked for ${file})`,
  );
}

export class AdminApi {
  private token: string | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly creds: AdminCredentials,
  ) {}

  private async fetchJson(path: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${path}`, init);
    } catch (err) {
      throw new CliError(
        `cannot reach the server at ${this.baseUrl} (${(err as Error).cause ?? (err as Error).message}); is it running? (--url)`,
      );
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: res.status, body };
  }

  private async accessToken(): Promise<string> {
    if (this.token !== undefined) return this.token;
    const { status, body } = await this.fetchJson('/nbx/v1/auth/emm-token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: this.creds.clientId,
        client_secret: this.creds.clientSecret,
        scope: 'admin read:tape',
      }),
    });
    const b = body as { access_token?: string; error?: string; error_description?: string } | undefined;
    if (status !== 200 || typeof b?.access_token !== 'string') {
      throw new CliError(
        `operator authentication failed (${status} ${b?.error ?? ''}: ${b?.error_description ?? ''}); credentials from ${this.creds.source}`,
      );
    }
    this.token = b.access_token;
    return this.token;
  }

  /** Calls the admin API; throws CliError with the server's message on a non-2xx answer. */
  async call<T>(method: string, path: string, payload?: unknown): Promise<T> {
    const token = await this.accessToken();
    const { status, body } = await this.fetchJson(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    if (status < 200 || status >= 300) {
      const e = body as { code?: string; message?: string } | undefined;
      throw new CliError(
        `${method} ${path}: ${status} ${e?.code ?? ''} ${e?.message ?? String(body ?? '')}`.trim(),
      );
    }
    return body as T;
  }
}

/**
 * The server a command talks to, never a guessed default: --url; else HOST and PORT when the
 * environment sets either (the variables `npm start` listens on; 0.0.0.0 and :: are reached
 * through 127.0.0.1); else the address the running server recorded in the store's credentials
 * file (`url`, or the origin of its `tokenUrl` in a file written before servers recorded it).
 */
export function serverUrl(
  url: unknown,
  env: Record<string, string | undefined>,
  config: Pick<Config, 'host' | 'port' | 'adminCredentialsFile'>,
): string {
  if (typeof url === 'string' && url !== '') return url;
  if ((env.PORT ?? '') !== '' || (env.HOST ?? '') !== '') {
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  }
  const recorded = recordedServerUrl(config.adminCredentialsFile);
  if (recorded !== undefined) return recorded;
  throw new CliError(
    `no server address: pass --url, or set PORT (and HOST) as for the server; ${config.adminCredentialsFile}, where a started server records its address, has none`,
    2,
  );
}

/** The address recorded in a credentials file, if the file exists and holds one. */
function recordedServerUrl(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const j = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown; tokenUrl?: unknown };
    if (typeof j.url === 'string' && j.url !== '') return j.url;
    if (typeof j.tokenUrl === 'string') return new URL(j.tokenUrl).origin;
  } catch {
    // unreadable: no address from it
  }
  return undefined;
}

/** The `--url` option of every command that calls the admin API. */
export const urlOption: OptionSpec = { url: { type: 'string' } };

/** The admin API of the server the command names (--url) with the operator credentials. */
export function adminApi(args: CommandArgs, ctx: CliContext): AdminApi {
  const config = ctx.config();
  return new AdminApi(serverUrl(args.values.url, ctx.env, config), readAdminCredentials(config));
}

/** The command's positional arguments, exactly `n` of them, else a usage error (exit code 2). */
export function positionals(args: CommandArgs, n: number, usage: string): string[] {
  if (args.positionals.length !== n) throw new CliError(`usage: tickbook ${usage}`, 2);
  return args.positionals;
}
