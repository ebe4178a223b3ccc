// The operator bootstrap at start-up: make sure an admin client exists, from the environment
// (TICKBOOK_ADMIN_CLIENT_ID/_SECRET) or generated into a credentials file (docs/auth.md).

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Log } from '../observability/log.ts';
import type { ClientAdmin } from './client-admin.ts';
import { type ClientRegistry, tokensNotBeforeAt } from './clients.ts';
import type { AccountsPort } from './ports.ts';
import { DEFAULT_TRADER_SCOPES, type Scope } from './scopes.ts';
import { hashSecret, verifySecret } from './secrets.ts';

export interface AdminBootstrap {
  clientId: string;
  created: boolean;
  /** Where generated credentials were written (never logged with the secret). */
  credentialsFile?: string;
}

export interface BootstrapParts {
  config: Config;
  clients: ClientRegistry;
  admin: ClientAdmin;
  accounts: AccountsPort;
  log: Log;
  now: () => number;
  /** Drops the tokens a client holds (its secret changed). */
  invalidateTokens: (clientId: string) => void;
}

const ADMIN_SCOPES: readonly Scope[] = ['admin', ...DEFAULT_TRADER_SCOPES];

/**
 * Makes sure an operator client exists. With TICKBOOK_ADMIN_CLIENT_ID/_SECRET: that client, with
 * scope admin plus the trader scopes, active, accepting that secret. Without: when no active
 * admin client exists yet, generates one and writes it to the store's credentials file
 * (config.adminCredentialsFile, mode 0600); the log names the file, never the secret.
 */
export async function ensureAdminClient(p: BootstrapParts): Promise<AdminBootstrap> {
  const { adminClientId, adminClientSecret, adminCredentialsFile } = p.config;
  if (adminClientId !== undefined && adminClientSecret !== undefined) {
    if (adminClientSecret.length < 32) {
      p.log.warn(
        { variable: 'TICKBOOK_ADMIN_CLIENT_SECRET' },
        'TICKBOOK_ADMIN_CLIENT_SECRET is shorter than 32 characters; use a long random secret (e.g. `openssl rand -base64 32`)',
      );
    }
    const existing = p.clients.get(adminClientId);
    if (existing === undefined) {
      await p.admin.create({
        name: 'operator',
        scopes: ADMIN_SCOPES,
        clientId: adminClientId,
        clientSecret: adminClientSecret,
      });
      return { clientId: adminClientId, created: true };
    }
    const scopes = [...new Set([...existing.scopes, ...ADMIN_SCOPES])];
    const accountId = existing.accountId ?? (await p.accounts.create());
    // A changed secret in the environment is a rotation: the tokens issued before end.
    const changed = !verifySecret(adminClientSecret, existing.secretHash);
    await p.clients.update({
      ...existing,
      scopes,
      accountId,
      status: 'active',
      secretHash: hashSecret(adminClientSecret),
      updatedAt: p.now(),
      ...(changed ? { tokensNotBefore: tokensNotBeforeAt(p.now()) } : {}),
    });
    if (changed) p.invalidateTokens(adminClientId);
    return { clientId: adminClientId, created: false };
  }
  const admin = p.clients.all().find((c) => c.status === 'active' && c.scopes.includes('admin'));
  if (admin !== undefined) return { clientId: admin.clientId, created: false };
  const created = await p.admin.create({ name: 'operator', scopes: ADMIN_SCOPES });
  const file = resolve(adminCredentialsFile);
  mkdirSync(dirname(file), { recursive: true });
  const body = {
    clientId: created.clientId,
    clientSecret: created.clientSecret,
    scopes: created.scopes,
    tokenUrl: `${p.config.publicBaseUrl}/nbx/v1/auth/emm-token`,
    createdAt: new Date(p.now()).toISOString(),
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  p.log.warn(
    { clientId: created.clientId, path: file },
    'generated operator credentials; they are in this file (mode 0600)',
  );
  return { clientId: created.clientId, created: true, credentialsFile: file };
}

/**
 * Writes the address a started server listens on into the generated credentials file (`url`), so
 * that `tickbook` run beside it with no --url and no PORT calls the server that is running, on
 * whatever port, rather than a guessed default. A file that is absent or not ours is left alone.
 */
export function recordServerUrl(file: string, url: string, log: Log): void {
  if (!existsSync(file)) return;
  try {
    const body = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (typeof body.clientId !== 'string' || body.url === url) return;
    writeFileSync(file, `${JSON.stringify({ ...body, url }, null, 2)}\n`, { mode: 0o600 });
  } catch (err) {
    log.warn({ err, path: file }, 'could not record the server address in the credentials file');
  }
}
