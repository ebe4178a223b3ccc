// One `/trade` connection (docs/order-entry.md): reads request frames, answers each with its
// result or an error frame carrying the one error envelope, and never lets a bad frame close the
// connection or reach the journal. Requests are pipelined: many may be in flight, each answered
// when its command is durable (group commits resolve in seq order, so answers come in commit
// order). Memory stays bounded, and nothing a client sends is refused for its pace: at most
// `maxInFlight` requests are in flight, and a connection at that bound is not read until an answer
// frees a place (TCP back-pressure on the client; the frames of a read already made wait here, in
// order); when answers not yet written to the socket pass `highWaterBytes` the connection stops
// reading until they drain (docs/order-entry.md "Pipelining and back-pressure").

import type { Principal } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { ApiError, type ErrorEnvelope } from '../../errors.ts';
import { type Settle, settleFrom } from '../../runtime/exchange-port.ts';
import type { OrderEntry } from '../../runtime/order-entry.ts';
import type { QuoteEntry } from '../../runtime/quote-entry.ts';
import { mapError } from '../error-handler.ts';
import { schemaError } from '../order-requests.ts';
import type { ParlayQuoteEntry } from '../parlay-quote-entry.ts';
import { authenticate } from '../routes/tape-upgrade.ts';
import {
  type Answer,
  type HandlerContext,
  MESSAGE_TYPES,
  type MessageType,
  type Validator,
} from './handlers.ts';

/** What a session needs of its socket (`ws` in src/http/routes/trade.ts; a fake in tests). */
export interface Transport {
  /** Sends one text frame; `written` runs once it has been handed to the kernel (or failed). */
  send(text: string, written: () => void): void;
  /** Stop and restart reading client frames (TCP back-pressure on the client). */
  pause(): void;
  resume(): void;
}

export interface SessionDeps {
  entry: OrderEntry;
  quotes: QuoteEntry;
  /** The parlay quote service REST's `POST /nbx/v1/parlay/quotes` uses. */
  parlayQuotes: ParlayQuoteEntry;
  auth: Pick<AuthService, 'verifyCached' | 'verifyAccessToken'>;
  /** Compiled validators of every message type's `data`, and of the place body (batch items). */
  validators: ReadonlyMap<string, Validator>;
  validatePlace: Validator;
  validateEnvelope: Validator;
  maxInFlight: number;
  highWaterBytes: number;
  /** Called for an unexpected (5xx) error: it is answered INTERNAL_ERROR and logged, never thrown. */
  onInternalError?: (err: unknown) => void;
}

type RequestId = string | number;

interface Envelope {
  type: string;
  id: RequestId;
  data?: unknown;
}

/** An answered request, as sent. */
export type ResultFrame = {
  type: string;
  id: RequestId;
  seq: number | null;
  result: unknown;
  replayed?: true;
};
export type ErrorFrame = { type: 'error'; id: RequestId | null; error: ErrorEnvelope };

export class TradeSession {
  inFlight = 0;
  /** Bytes of frames handed to the socket and not yet written out. */
  unwritten = 0;
  /** Reading stopped: answers pile up unwritten (`unwritten`), or the in-flight bound is reached. */
  private pausedForWrites = false;
  private pausedForBound = false;
  /**
   * Frames read while the connection was at its in-flight bound, in arrival order, from `next`:
   * at most what the reads made before the pause took effect held (a socket read and the frames
   * ws had buffered), since nothing more is read until they are taken.
   */
  private waiting: string[] = [];
  private next = 0;
  closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly deps: SessionDeps,
    private principal: Principal,
    private token: string,
  ) {}

  /** A binary frame: answered, never parsed. */
  binary(): void {
    this.sendError(null, new ApiError('MALFORMED_JSON', 'Frames must be JSON text'));
  }

  /** The connection closed: nothing more is sent, and frames still waiting are dropped. */
  close(): void {
    this.closed = true;
    this.waiting = [];
    this.next = 0;
  }

  /** Frames read and waiting for a place under the in-flight bound. */
  get backlog(): number {
    return this.waiting.length - this.next;
  }

  /**
   * One client frame. Never throws; every outcome is a frame. At the in-flight bound (or behind
   * frames already waiting for it) the frame waits, in order, and the connection stops being read.
   */
  message(text: string): void {
    if (this.inFlight >= this.deps.maxInFlight || this.next < this.waiting.length) {
      if (this.closed) return;
      this.waiting.push(text);
      if (!this.pausedForBound) {
        this.pausedForBound = true;
        if (!this.pausedForWrites) this.transport.pause();
      }
      return;
    }
    this.handle(text);
  }

  /** True while freed() handles waiting frames (see there). */
  private draining = false;

  /** A request was answered: frames waiting for a place are handled, and reading resumes. */
  private freed(): void {
    this.inFlight--;
    // A request refused at once (a bad frame, a placement the engine rejects) is answered inside
    // `handle`, so this runs again inside the loop below: the loop, further up the stack, goes on.
    if (this.draining) return;
    const w = this.waiting;
    this.draining = true;
    try {
      while (this.next < w.length && this.inFlight < this.deps.maxInFlight) this.handle(w[this.next++]!);
    } finally {
      this.draining = false;
    }
    if (this.next < w.length) return;
    if (this.next > 0) {
      this.waiting = [];
      this.next = 0;
    }
    if (this.pausedForBound) {
      this.pausedForBound = false;
      if (!this.pausedForWrites && !this.closed) this.transport.resume();
    }
  }

  private handle(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.sendError(null, new ApiError('MALFORMED_JSON', 'The frame is not valid JSON'));
      return;
    }
    const v = this.deps.validateEnvelope;
    if (!v(msg)) {
      const id = (msg as { id?: unknown } | null)?.id;
      const known = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
      this.sendError(known ? (id as RequestId) : null, schemaError(v.errors as never, ''));
      return;
    }
    const env = msg as Envelope;
    const type = MESSAGE_TYPES[env.type];
    if (env.type !== 'auth' && (type === undefined || !Object.hasOwn(MESSAGE_TYPES, env.type))) {
      const known = ['auth', ...Object.keys(MESSAGE_TYPES)].join(', ');
      this.sendError(
        env.id,
        new ApiError('VALIDATION_FAILED', `Unknown message type "${env.type}" (one of: ${known})`, [
          { path: '/type', message: `must be one of: ${known}` },
        ]),
      );
      return;
    }
    this.inFlight++;
    if (env.type === 'auth') this.answer(this.reauthenticate(env), env.type, env.id);
    else this.run(env, type!);
  }

  /**
   * Sends the answer once it settles, through an Answering that holds the type and id only: closures
   * in `handle` would keep the parsed frame (its `data`, the request) alive until the command's group
   * commit, through every scavenge meanwhile.
   */
  private answer(done: Promise<Answer>, type: string, id: RequestId): void {
    settleFrom(done, new Answering(this, type, id));
  }

  /** The answer's frame, and the request's place freed (Answering and `answer` call it). */
  sendAnswer(type: string, id: RequestId, answer: Answer): void {
    // The ResultFrame's keys in order, written around the result's JSON (no frame object per
    // answer): the type is a known message type, the id a string or a safe integer.
    this.send(
      `{"type":"${type}","id":${typeof id === 'number' ? id : JSON.stringify(id)},"seq":${answer.seq},"result":${answer.json ?? JSON.stringify(answer.result) ?? 'null'}${answer.replayed ? ',"replayed":true}' : '}'}`,
    );
    this.freed();
  }

  /** The error frame of a failed request, and its place freed. */
  sendFailure(id: RequestId, err: unknown): void {
    this.sendError(id, err);
    this.freed();
  }

  /**
   * Runs the request and answers it. With the token still cached, the answer goes to an Answering
   * (the request's type and id, nothing of the frame): a handler with `runTo` (a placement) tells
   * it from the group commit's callback, with no promise in between.
   */
  private run(env: Envelope, type: MessageType): void {
    const p = this.current();
    if (p instanceof Promise) {
      this.answer(
        p.then((q) => this.runAs(env, type, q)),
        env.type,
        env.id,
      );
      return;
    }
    const to = new Answering(this, env.type, env.id);
    let ctx: HandlerContext;
    try {
      ctx = this.admit(env, type, p);
    } catch (err) {
      to.reject(err);
      return;
    }
    if (type.runTo !== undefined) type.runTo(ctx, env.data as never, to);
    else settleFrom(type.run(ctx, env.data as never), to);
  }

  /** What every handler of this connection is given (its account never changes: see `auth`). */
  private ctx: HandlerContext | undefined;

  /** Checks scope and data, then runs the handler; a refusal is a rejected promise, never a throw. */
  private runAs(env: Envelope, type: MessageType, p: Principal): Promise<Answer> {
    try {
      return type.run(this.admit(env, type, p), env.data as never);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Checks scope and data: the handler's context, or a throw of the refusal. */
  private admit(env: Envelope, type: MessageType, p: Principal): HandlerContext {
    if (!p.scopes.has(type.scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', `"${env.type}" requires the scope ${type.scope}`, {
        requiredScope: type.scope,
      });
    }
    const validate = this.deps.validators.get(env.type);
    if (validate !== undefined && !validate(env.data)) {
      const codes =
        typeof type.codes === 'function' ? type.codes(validate.errors?.[0]?.instancePath ?? '') : type.codes;
      throw schemaError(validate.errors as never, type.context, codes);
    }
    if (validate === undefined && env.data !== undefined) {
      throw new ApiError('VALIDATION_FAILED', `"${env.type}" carries no data`, [
        { path: '/data', message: 'must be absent' },
      ]);
    }
    this.ctx ??= {
      accountId: this.principal.accountId!,
      entry: this.deps.entry,
      quotes: this.deps.quotes,
      parlayQuotes: this.deps.parlayQuotes,
      validatePlace: this.deps.validatePlace,
    };
    return this.ctx;
  }

  /**
   * The connection's token, checked again for every request: an expired, revoked or superseded
   * token answers INVALID_TOKEN until an `auth` message brings a valid one. A token still cached
   * is checked synchronously (no promise per request); anything else takes the full verification,
   * which also maps the refusal.
   */
  private current(): Principal | Promise<Principal> {
    let p: Principal | undefined;
    try {
      p = this.deps.auth.verifyCached(this.token);
    } catch {
      // revoked, superseded or client disabled: authenticate() below answers it as INVALID_TOKEN
    }
    return p ?? authenticate(this.deps.auth, this.token);
  }

  /** `auth {token}`: a fresh token of the same account replaces the connection's. */
  private async reauthenticate(env: Envelope): Promise<Answer> {
    const token = (env.data as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || token === '') {
      throw new ApiError('VALIDATION_FAILED', 'data.token must be an access token', [
        { path: '/data/token', message: 'must be a non-empty string' },
      ]);
    }
    const p = await authenticate(this.deps.auth, token);
    if (p.accountId !== this.principal.accountId) {
      throw new ApiError('INVALID_TOKEN', 'The token acts for another account than this connection');
    }
    this.principal = p;
    this.token = token;
    return { result: { clientId: p.clientId, scopes: [...p.scopes] }, seq: null };
  }

  private sendError(id: RequestId | null, err: unknown): void {
    const m = mapError(err);
    if (m.status >= 500) this.deps.onInternalError?.(err);
    const frame: ErrorFrame = { type: 'error', id, error: m.body };
    this.send(JSON.stringify(frame));
  }

  private send(text: string): void {
    if (this.closed) return;
    const n = text.length;
    this.unwritten += n;
    if (!this.pausedForWrites && this.unwritten > this.deps.highWaterBytes) {
      this.pausedForWrites = true;
      if (!this.pausedForBound) this.transport.pause();
    }
    this.transport.send(text, () => {
      this.unwritten -= n;
      if (this.pausedForWrites && this.unwritten <= this.deps.highWaterBytes / 2) {
        this.pausedForWrites = false;
        if (!this.pausedForBound && !this.closed) this.transport.resume();
      }
    });
  }
}

/** Where one request's answer goes: its type and id, and the session that sends the frame. */
class Answering implements Settle<Answer> {
  constructor(
    private readonly session: {
      sendAnswer(type: string, id: RequestId, a: Answer): void;
      sendFailure(id: RequestId, e: unknown): void;
    },
    private readonly type: string,
    private readonly id: RequestId,
  ) {}

  resolve(answer: Answer): void {
    this.session.sendAnswer(this.type, this.id, answer);
  }

  reject(err: unknown): void {
    this.session.sendFailure(this.id, err);
  }
}
