// One `/trade` connection (docs/order-entry.md): reads request frames, answers each with its
// result or an error frame carrying the one error envelope, and never lets a bad frame close the
// connection or reach the journal. Requests are pipelined: many may be in flight, each answered
// when its command is durable (group commits resolve in seq order, so answers come in commit
// order). Memory stays bounded for a client that does not read: at most `maxInFlight` requests
// are in flight (more are answered RATE_LIMITED at once), and when answers not yet written to the
// socket pass `highWaterBytes` the connection stops reading until they drain.

import type { Principal } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { ApiError, type ErrorEnvelope } from '../../errors.ts';
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

const rateLimitedBodies = new Map<number, string>();

/** The error envelope of a frame over the in-flight bound, as JSON (the same for every frame). */
function rateLimitedBody(maxInFlight: number): string {
  let body = rateLimitedBodies.get(maxInFlight);
  if (body === undefined) {
    const err = new ApiError(
      'RATE_LIMITED',
      `At most ${maxInFlight} requests in flight per connection: read the answers first`,
    );
    body = JSON.stringify(mapError(err).body);
    rateLimitedBodies.set(maxInFlight, body);
  }
  return body;
}

export class TradeSession {
  inFlight = 0;
  /** Bytes of frames handed to the socket and not yet written out. */
  unwritten = 0;
  private paused = false;
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

  /** One client frame. Never throws; every outcome is a frame. */
  message(text: string): void {
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
    if (this.inFlight >= this.deps.maxInFlight) {
      // An overloaded server answers many of these: the error body is serialized once per bound,
      // not an ApiError (and its stack) and a mapping per refused frame.
      this.send(
        `{"type":"error","id":${JSON.stringify(env.id)},"error":${rateLimitedBody(this.deps.maxInFlight)}}`,
      );
      return;
    }
    this.inFlight++;
    const done = env.type === 'auth' ? this.reauthenticate(env) : this.run(env, type!);
    done.then(
      (answer) => {
        this.inFlight--;
        const frame: ResultFrame = { type: env.type, id: env.id, seq: answer.seq, result: answer.result };
        if (answer.replayed) frame.replayed = true;
        this.send(JSON.stringify(frame));
      },
      (err: unknown) => {
        this.inFlight--;
        this.sendError(env.id, err);
      },
    );
  }

  private run(env: Envelope, type: MessageType): Promise<Answer> {
    const p = this.current();
    return p instanceof Promise ? p.then((q) => this.runAs(env, type, q)) : this.runAs(env, type, p);
  }

  /** What every handler of this connection is given (its account never changes: see `auth`). */
  private ctx: HandlerContext | undefined;

  /** Checks scope and data, then runs the handler; a refusal is a rejected promise, never a throw. */
  private runAs(env: Envelope, type: MessageType, p: Principal): Promise<Answer> {
    try {
      if (!p.scopes.has(type.scope)) {
        throw new ApiError('INSUFFICIENT_SCOPE', `"${env.type}" requires the scope ${type.scope}`, {
          requiredScope: type.scope,
        });
      }
      const validate = this.deps.validators.get(env.type);
      if (validate !== undefined && !validate(env.data)) {
        const codes =
          typeof type.codes === 'function'
            ? type.codes(validate.errors?.[0]?.instancePath ?? '')
            : type.codes;
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
      return type.run(this.ctx, env.data as never);
    } catch (err) {
      return Promise.reject(err);
    }
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
    if (!this.paused && this.unwritten > this.deps.highWaterBytes) {
      this.paused = true;
      this.transport.pause();
    }
    this.transport.send(text, () => {
      this.unwritten -= n;
      if (this.paused && this.unwritten <= this.deps.highWaterBytes / 2) {
        this.paused = false;
        if (!this.closed) this.transport.resume();
      }
    });
  }
}
