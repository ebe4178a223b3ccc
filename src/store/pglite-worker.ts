// PGlite on a worker thread (docs/journal.md, "The embedded SQL store"). PGlite is PostgreSQL
// compiled to WASM and runs synchronously inside each call: on the event loop, every statement the
// history projector, the auth service or retention sends stops all request handling until it is
// done (19–22 % of the main thread under durable order placement). With EMBEDDED_SQL_THREAD=worker
// (the server's default) the database lives in a thread of its own and the main thread only posts
// each call and reads its answer; it costs memory (docs/decisions.md "PGlite runs on a worker
// thread by default").
//
// The protocol is postMessage with call ids (structured clone: no JSON round trip). Calls are
// answered in whatever order PGlite finishes them; PGlite's own mutex still serializes them, so a
// statement sent outside an open transaction waits for that transaction to end, as it does when
// PGlite runs in-thread. An interactive transaction is PGlite's own `transaction()` held open in
// the worker between a `begin` and a `commit` or `rollback` message.
//
// The worker is plain JavaScript evaluated from a string (as the signing pool's, src/auth/signer.ts),
// so it runs the same whether the process was started through tsx, the CLI shim or compiled output:
// it imports PGlite by the file URL the main thread resolved.

import { Worker } from 'node:worker_threads';
import type { Queryable, QueryResult } from './types.ts';

/** What the store runs SQL on: PGlite in this thread, or the worker below. */
export interface PgliteBackend extends Queryable {
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const ROLLBACK = Symbol('rollback');
const txs = new Map();
let db;

// A DatabaseError's useful fields (code = SQLSTATE, detail, constraint, …) are own properties that
// structured clone would drop: send every primitive one, with the name, message and stack.
function errorFields(err) {
  if (err === null || typeof err !== 'object') return { name: 'Error', message: String(err) };
  const out = { name: typeof err.name === 'string' ? err.name : 'Error', message: String(err.message) };
  for (const k of Object.keys(err)) {
    const v = err[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  if (typeof err.stack === 'string') out.stack = err.stack;
  return out;
}
function fail(id, err) {
  parentPort.postMessage({ id, error: errorFields(err) });
}
function answer(id, r) {
  try {
    parentPort.postMessage(r === undefined ? { id } : { id, rows: r.rows, affectedRows: r.affectedRows });
  } catch (err) {
    fail(id, err); // a value structured clone cannot copy
  }
}
function target(m) {
  if (m.tx === undefined) return db;
  const t = txs.get(m.tx);
  if (t === undefined || t.tx === undefined) throw new Error('Transaction is closed');
  return t.tx;
}
function begin(m) {
  const t = { tx: undefined, endId: undefined, end: undefined };
  const ended = new Promise((r) => { t.end = r; });
  txs.set(m.id, t);
  db.transaction(async (tx) => {
    t.tx = tx;
    answer(m.id);
    if ((await ended) === 'rollback') throw ROLLBACK;
  }).then(
    () => { txs.delete(m.id); answer(t.endId); },
    (err) => {
      txs.delete(m.id);
      if (t.tx === undefined) fail(m.id, err); // BEGIN itself failed
      else if (err === ROLLBACK) answer(t.endId);
      else fail(t.endId, err);
    },
  );
}
parentPort.on('message', (m) => {
  try {
    switch (m.op) {
      case 'query':
        target(m).query(m.sql, m.params).then((r) => answer(m.id, r), (e) => fail(m.id, e));
        return;
      case 'exec':
        target(m).exec(m.sql).then(() => answer(m.id), (e) => fail(m.id, e));
        return;
      case 'begin':
        begin(m);
        return;
      case 'commit':
      case 'rollback': {
        const t = txs.get(m.tx);
        if (t === undefined || t.endId !== undefined) throw new Error('Transaction is closed');
        t.endId = m.id;
        t.end(m.op);
        return;
      }
      case 'close':
        (db.closed ? Promise.resolve() : db.close()).then(() => answer(m.id), (e) => fail(m.id, e));
        return;
      default:
        throw new Error('unknown operation ' + m.op);
    }
  } catch (err) {
    fail(m.id, err);
  }
});
(async () => {
  const { PGlite } = await import(workerData.pglite);
  db = workerData.dataDir === undefined
    ? await PGlite.create()
    : await PGlite.create(workerData.dataDir, { startParams: workerData.startParams });
})().then(() => answer(0), (e) => fail(0, e));
`;

/** Error fields sent by the worker (errorFields above). */
interface WireError {
  name: string;
  message: string;
  stack?: string;
  [field: string]: string | number | boolean | undefined;
}

interface Reply {
  id: number;
  rows?: unknown[];
  affectedRows?: number;
  error?: WireError;
}

interface Pending {
  resolve: (r: Reply) => void;
  reject: (err: Error) => void;
}

/**
 * A database error from the worker, with the fields PGlite's DatabaseError carries (`code` =
 * SQLSTATE, `detail`, `constraint`, `table`, …) copied onto it as own properties, as callers that
 * check `err.code` expect. The worker's stack follows this thread's under "worker stack:".
 */
export class PgliteWorkerError extends Error {
  [field: string]: unknown;
  constructor(wire: WireError) {
    super(wire.message);
    for (const [k, v] of Object.entries(wire)) {
      if (k !== 'message' && k !== 'stack' && k !== 'name') this[k] = v;
    }
    this.name = wire.name;
    if (wire.stack !== undefined) this.stack = `${this.stack}\nworker stack: ${wire.stack}`;
  }
}

/** The one failure every call gets once the worker is gone (crashed, out of memory, terminated). */
export class PgliteWorkerGoneError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PgliteWorkerGoneError';
  }
}

/** The PGlite module, resolved here so that the worker imports the very same file. */
const PGLITE_URL = import.meta.resolve('@electric-sql/pglite');

type Message =
  | { op: 'query'; id: number; sql: string; params: readonly unknown[] | undefined; tx: number | undefined }
  | { op: 'exec'; id: number; sql: string; tx: number | undefined }
  | { op: 'begin' | 'close'; id: number }
  | { op: 'commit' | 'rollback'; id: number; tx: number };

export class PgliteWorker implements PgliteBackend {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the worker is gone; every later call rejects with it at once. */
  private gone: PgliteWorkerGoneError | undefined;
  private closing = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: Reply) => this.settle(m));
    // A reply that cannot be deserialized would otherwise leave its caller waiting for ever.
    worker.on('messageerror', (err) => {
      this.die(
        new PgliteWorkerGoneError(`the embedded store's SQL thread sent an unreadable reply: ${err.message}`),
      );
    });
    worker.on('error', (err) => {
      this.die(
        new PgliteWorkerGoneError(`the embedded store's SQL thread failed: ${err.message}`, { cause: err }),
      );
    });
    worker.on('exit', (code) => {
      this.die(
        new PgliteWorkerGoneError(
          this.closing
            ? 'the embedded store is closed'
            : `the embedded store's SQL thread exited (code ${code}); restart the server`,
        ),
      );
    });
    // Idle, the thread must not keep the process alive (a CLI command, a test that ends): it is
    // held (ref) only while a call waits for its answer.
    worker.unref();
  }

  /**
   * Starts the thread and opens PGlite there: `dataDir` with `startParams`, or an in-memory
   * database when `dataDir` is undefined. Rejects with PGlite's error (the thread then ends).
   */
  static async open(dataDir: string | undefined, startParams: readonly string[]): Promise<PgliteWorker> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { pglite: PGLITE_URL, dataDir, startParams },
      // The parent's flags (a tsx loader, --inspect) are of no use to plain JavaScript.
      execArgv: [],
    });
    const w = new PgliteWorker(worker);
    // Call id 0 is the open.
    const opened = new Promise<Reply>((resolve, reject) => {
      w.pending.set(0, { resolve, reject });
      w.worker.ref();
    });
    try {
      await opened;
    } catch (err) {
      w.closing = true;
      await worker.terminate();
      throw err;
    }
    return w;
  }

  /** True until the thread is gone (closed, crashed or terminated). */
  get alive(): boolean {
    return this.gone === undefined;
  }

  private call(msg: Message): Promise<Reply> {
    if (this.gone !== undefined) return Promise.reject(this.gone);
    return new Promise<Reply>((resolve, reject) => {
      this.worker.postMessage(msg); // throws (DataCloneError) before anything is recorded
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(msg.id, { resolve, reject });
    });
  }

  private settle(m: Reply): void {
    const p = this.pending.get(m.id);
    if (p === undefined) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.error !== undefined) p.reject(new PgliteWorkerError(m.error));
    else p.resolve(m);
  }

  private die(err: PgliteWorkerGoneError): void {
    if (this.gone !== undefined) return;
    this.gone = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.worker.unref();
  }

  async query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<T>> {
    const r = await this.call({ op: 'query', id: this.nextId++, sql, params, tx: undefined });
    return { rows: r.rows as T[], affectedRows: r.affectedRows };
  }

  async exec(sql: string): Promise<void> {
    await this.call({ op: 'exec', id: this.nextId++, sql, tx: undefined });
  }

  /**
   * `fn` runs here; its statements run in the worker inside PGlite's transaction, which commits
   * when fn resolves and rolls back when it throws (the Store contract, src/store/types.ts).
   */
  async transaction<T>(fn: (tx: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T> {
    const begin = await this.call({ op: 'begin', id: this.nextId++ });
    const txId = begin.id;
    const tx = {
      query: async <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => {
        const r = await this.call({ op: 'query', id: this.nextId++, sql, params, tx: txId });
        return { rows: r.rows as R[], affectedRows: r.affectedRows } as QueryResult<R>;
      },
      exec: async (sql: string) => {
        await this.call({ op: 'exec', id: this.nextId++, sql, tx: txId });
      },
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      // fn's error is the one to report; a rollback that fails (the thread gone) changes nothing.
      await this.call({ op: 'rollback', id: this.nextId++, tx: txId }).catch(() => {});
      throw err;
    }
    await this.call({ op: 'commit', id: this.nextId++, tx: txId });
    return result;
  }

  /** Closes PGlite in the thread, then ends the thread. Safe to call twice. */
  async close(): Promise<void> {
    if (this.gone !== undefined) return;
    try {
      await this.call({ op: 'close', id: this.nextId++ });
    } finally {
      this.closing = true;
      await this.worker.terminate();
    }
  }

  /** Ends the thread at once, as a crash would (tests of the failure path). */
  async kill(): Promise<void> {
    await this.worker.terminate();
  }
}
