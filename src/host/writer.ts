// What a writing process does at start in either host: the browser UI's viewer client set up (or
// disabled when the UI is off) and the dead-man countdowns armed before a restart re-armed.

import type { AuthService } from '../auth/service.ts';
import { disableViewerClient, ensureViewerClient, type ViewerCredentials } from '../http/ui-viewer.ts';
import type { Stream } from '../stream/service.ts';
import type { HostDeps } from './host.ts';

/** The UI's read-only market-data client (docs/ui.md): created when the UI is on, disabled when off. */
export async function setUpViewer(auth: AuthService, deps: HostDeps): Promise<ViewerCredentials | undefined> {
  if (deps.config.ui) return ensureViewerClient(auth, deps.log);
  await disableViewerClient(auth);
  return undefined;
}

/** Dead-man countdowns armed before: re-armed, or fired now if they fell due meanwhile. */
export async function restoreCountdowns(
  stream: Stream,
  log: HostDeps['log'],
  message: string,
): Promise<void> {
  const rearmed = await stream.deadman.restore();
  if (rearmed > 0) log.info({ rearmed }, message);
}
