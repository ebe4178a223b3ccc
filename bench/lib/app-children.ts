// The parent's side of bench/lib/app-child.mjs: start a server child and talk to it over IPC.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This checkout's root: its bench/lib/app-child.mjs runs its dist/. */
export const THIS_CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));
const built = new Set<string>();

/** Rebuilds a checkout's dist/ when a source is newer (as `npm start` does), once per bench run. */
function ensureBuild(checkout: string): void {
  if (built.has(checkout)) return;
  execFileSync(process.execPath, [join(checkout, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
  built.add(checkout);
}

export const BENCH_ADMIN = {
  id: 'bench-admin',
  secret: 'bench-admin-secret-0123456789abcdefghijklmnopqrstu',
};

/**
 * The environment of a real server for the HTTP benches: embedded store in a fresh temp dir (pushed
 * on `dirs` for the caller to remove), the demo slate without its live clock, the parlay rate limit
 * lifted, a known admin client, logging at `logLevel` (the shipped `info` unless measuring silent).
 */
export function benchAppEnv(dirs: string[], logLevel = 'info'): Record<string, string> {
  const d = mkdtempSync(join(tmpdir(), 'tickbook-bench-'));
  dirs.push(d);
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: d,
    DATABASE_URL: '',
    LOG_LEVEL: logLevel,
    TICKBOOK_DEMO: 'true',
    DEMO_LIVE: 'false',
    PARLAY_RATE_LIMIT: '0',
    TICKBOOK_ADMIN_CLIENT_ID: BENCH_ADMIN.id,
    TICKBOOK_ADMIN_CLIENT_SECRET: BENCH_ADMIN.secret,
    KEY_ENCRYPTION_SECRET: 'bench',
  };
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

/**
 * A server child of `checkout` (default: this one), running that checkout's built server; `nodeArgs`
 * for node itself (e.g. --cpu-prof).
 */
export async function spawnServer(
  env: Record<string, string>,
  checkout = THIS_CHECKOUT,
  nodeArgs: string[] = [],
): Promise<Server> {
  if (env.ROLE !== 'bare') ensureBuild(checkout);
  const proc = fork(join(checkout, 'bench/lib/app-child.mjs'), [], {
    execArgv: nodeArgs,
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
