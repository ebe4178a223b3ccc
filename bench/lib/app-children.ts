// The parent's side of bench/lib/app-child.mjs: start a server child and talk to it over IPC.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./app-child.mjs', import.meta.url));
const ENSURE_BUILD = fileURLToPath(new URL('../../scripts/ensure-build.mjs', import.meta.url));
let built = false;

/** Rebuilds dist/ when a source is newer (as `npm start` does), once per bench run. */
function ensureBuild(): void {
  if (built) return;
  execFileSync(process.execPath, [ENSURE_BUILD], { stdio: 'inherit' });
  built = true;
}

export interface Server {
  proc: ChildProcess;
  url: string;
  /** CPU time (user + system, µs) the server process has used so far. */
  cpu(): Promise<number>;
  /** User CPU time (µs) only: the process's own code, without the kernel's share (syscalls). */
  userCpu(): Promise<number>;
  /** ROLE=bare only: serve `bytes` at /bare/<key>. */
  store(key: string, bytes: Buffer): Promise<void>;
}

/** Waits for the next IPC message of `kind` (and, if given, matching `pred`). */
function next<T extends { kind: string }>(
  proc: ChildProcess,
  kind: string,
  pred: (m: T) => boolean = () => true,
) {
  return new Promise<T>((resolve) => {
    const on = (m: T) => {
      if (m.kind !== kind || !pred(m)) return;
      proc.off('message', on);
      resolve(m);
    };
    proc.on('message', on);
  });
}

export async function spawnServer(env: Record<string, string>): Promise<Server> {
  if (env.ROLE !== 'bare') ensureBuild();
  const proc = fork(CHILD, [], {
    execArgv: [],
    env: { ...process.env, ...env },
    // The server's log lines go to /dev/null: written (the cost is the app's), never read.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`))),
  );
  const ready = await Promise.race([next<{ kind: string; url: string }>(proc, 'ready'), exited]);
  return {
    proc,
    url: ready.url,
    async cpu() {
      const r = next<{ kind: string; cpu: number }>(proc, 'cpu');
      proc.send({ kind: 'cpu' });
      return (await r).cpu;
    },
    async userCpu() {
      const r = next<{ kind: string; user: number }>(proc, 'cpu');
      proc.send({ kind: 'cpu' });
      return (await r).user;
    },
    async store(key, bytes) {
      const r = next<{ kind: string; key: string }>(proc, 'stored', (m) => m.key === key);
      proc.send({ kind: 'bytes', key, body: bytes.toString('base64') });
      await r;
    },
  };
}
