// The UI's read-only client (docs/ui.md): market data needs a `read:tape` bearer token
// (docs/auth.md), and a visitor of the explorer has no credentials. The server keeps one client
// with that scope alone, gives it a fresh secret at every start (the store keeps only hashes, so
// the secret cannot be read back) and publishes it at /ui/config.json; the page then takes its
// token through the ordinary client-credentials grant, like any other client. With UI=false the
// client is disabled, so market data is again only for clients the operator created.

import type { AuthService } from '../auth/service.ts';
import type { Log } from '../observability/log.ts';

export const VIEWER_CLIENT_ID = 'tickbook-ui-viewer';

export interface ViewerCredentials {
  clientId: string;
  clientSecret: string;
}

/** Makes sure the viewer client exists, is active and has a secret this process knows. */
export async function ensureViewerClient(
  auth: AuthService,
  log: Log,
): Promise<ViewerCredentials | undefined> {
  const existing = auth.listClients().find((c) => c.clientId === VIEWER_CLIENT_ID);
  if (existing === undefined) {
    const c = await auth.createClient({
      name: 'ui viewer (read:tape)',
      scopes: ['read:tape'],
      clientId: VIEWER_CLIENT_ID,
    });
    return { clientId: c.clientId, clientSecret: c.clientSecret };
  }
  if (existing.status === 'revoked') {
    log.warn(
      { clientId: VIEWER_CLIENT_ID },
      'the UI viewer client is revoked: the explorer asks visitors to sign in for market data',
    );
    return undefined;
  }
  if (existing.status !== 'active') await auth.setClientStatus(VIEWER_CLIENT_ID, 'active');
  const rotated = await auth.rotateSecret(VIEWER_CLIENT_ID, 0);
  return { clientId: VIEWER_CLIENT_ID, clientSecret: rotated.clientSecret };
}

/** UI=false: the published read-only client stops working (its tokens are rejected at once). */
export async function disableViewerClient(auth: AuthService): Promise<void> {
  const existing = auth.listClients().find((c) => c.clientId === VIEWER_CLIENT_ID);
  if (existing?.status === 'active') await auth.setClientStatus(VIEWER_CLIENT_ID, 'disabled');
}

interface SqlStore {
  query<T>(sql: string, params?: readonly unknown[]): Promise<{ rows: T[] }>;
}

/**
 * Publishes the credentials the writer set (or none) in the store, where every process of a
 * PostgreSQL deployment reads them (docs/cluster.md "The browser UI on every process").
 */
export async function publishViewer(store: SqlStore, viewer: ViewerCredentials | undefined): Promise<void> {
  if (viewer === undefined) {
    await store.query('DELETE FROM ui_viewer');
    return;
  }
  await store.query(
    `INSERT INTO ui_viewer (id, client_id, client_secret, updated_at) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET client_id = EXCLUDED.client_id, client_secret = EXCLUDED.client_secret,
       updated_at = EXCLUDED.updated_at`,
    [viewer.clientId, viewer.clientSecret, Date.now()],
  );
}

/** The credentials the writer published, if any. */
export async function readPublishedViewer(store: SqlStore): Promise<ViewerCredentials | undefined> {
  const r = await store.query<{ client_id: string; client_secret: string }>(
    'SELECT client_id, client_secret FROM ui_viewer WHERE id = 1',
  );
  const row = r.rows[0];
  return row === undefined ? undefined : { clientId: row.client_id, clientSecret: row.client_secret };
}
