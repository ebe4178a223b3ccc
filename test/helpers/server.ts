// A real server (src/main.ts startServer) for integration tests: the embedded store in a private
// copy of the migrated PGlite template (fast), or a private PostgreSQL schema when kind is
// 'postgres'. Restartable on the same data, which is how durability is tested.

import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '../../src/main.ts';
import type { StoreKind } from '../../src/store/types.ts';
import { createPostgresSchema, pgliteTemplate } from './store.ts';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));

export const ADMIN_ID = 'test-admin';
export const ADMIN_SECRET = 'test-admin-secret-0123456789abcdefghijklmnopqrstuv';

export interface ServerPlace {
  kind: StoreKind;
  env: Record<string, string>;
  /** Removes the data directory or drops the schema. */
  destroy(): Promise<void>;
}

/** A place for a server's data: a template copy (PGlite) or a fresh schema (PostgreSQL). */
export async function serverPlace(
  kind: StoreKind,
  extraEnv: Record<string, string> = {},
): Promise<ServerPlace> {
  const dataDir = join(root, '.tmp', 'servers', `${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    TICKBOOK_DEMO: 'false',
    DEMO_LIVE: 'false',
    AUTO_GO_LIVE: 'false',
    TICKBOOK_ADMIN_CLIENT_ID: ADMIN_ID,
    TICKBOOK_ADMIN_CLIENT_SECRET: ADMIN_SECRET,
    KEY_ENCRYPTION_SECRET: 'integration-test-key-encryption-secret',
    PUBLIC_BASE_URL: 'http://tickbook.test',
    // A PGlite place must not inherit CI's DATABASE_URL (child processes get process.env too).
    DATABASE_URL: '',
    ...extraEnv,
  };
  if (kind === 'pglite') {
    cpSync(await pgliteTemplate(), join(dataDir, 'pg'), { recursive: true });
    return { kind, env, destroy: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const pg = await createPostgresSchema('it_');
  env.DATABASE_URL = pg.url;
  return {
    kind,
    env,
    destroy: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await pg.drop();
    },
  };
}

export function start(place: ServerPlace, extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  return startServer({ env: { ...place.env, ...extraEnv } });
}

/** A small HTTP client over the running server's inject (no sockets needed). */
export class Api {
  constructor(
    private readonly srv: RunningServer,
    public token?: string,
  ) {}

  async call(method: string, url: string, body?: unknown, token: string | null = this.token ?? null) {
    const r = await this.srv.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    let json: unknown;
    try {
      json = r.body.length ? JSON.parse(r.body) : undefined;
    } catch {
      json = r.body;
    }
    return { status: r.statusCode, headers: r.headers, body: json as any };
  }

  async tokenFor(clientId: string, clientSecret: string): Promise<string> {
    const r = await this.call(
      'POST',
      '/nbx/v1/auth/emm-token',
      {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      },
      null,
    );
    if (r.status !== 200) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.access_token as string;
  }
}
