// The page's only way to the server: the public HTTP API (docs/http.md). Two bearer tokens are held
// in memory and nowhere else: the viewer's (read:tape, from the read-only client the server
// publishes at /ui/config.json) and, after sign-in, the trader's.
//
// GETs of market data are conditional: each answer's ETag is remembered per URL and sent back as
// If-None-Match, so an unchanged book costs a 304 without a body (docs/http.md "Read path").

export interface ApiErrorBody {
  statusCode?: number;
  error?: string;
  message?: string;
  code?: string;
  details?: unknown;
  error_description?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message ?? body.error_description ?? body.error ?? `HTTP ${status}`);
  }
  /** The stable machine code (error envelope `code`, or the OAuth `error`). */
  get code(): string {
    return this.body.code ?? this.body.error ?? `HTTP_${this.status}`;
  }
}

interface Token {
  value: string;
  expiresAt: number;
}

interface Credentials {
  clientId: string;
  clientSecret: string;
}

async function requestToken(c: Credentials): Promise<Token> {
  const r = await fetch('/nbx/v1/auth/emm-token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    }),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, body as ApiErrorBody);
  const t = body as { access_token: string; expires_in: number };
  return { value: t.access_token, expiresAt: Date.now() + Math.max(30, t.expires_in - 30) * 1000 };
}

/** A token source: takes a token on first use and again shortly before it expires. */
class TokenHolder {
  private token: Token | undefined;
  private pending: Promise<Token> | undefined;
  constructor(
    private readonly creds: () => Promise<Credentials | undefined>,
    private readonly onFail: () => void = () => {},
  ) {}

  async get(): Promise<string | undefined> {
    if (this.token && this.token.expiresAt > Date.now()) return this.token.value;
    this.pending ??= (async () => {
      const c = await this.creds();
      if (!c) throw new ApiError(401, { code: 'NO_VIEWER', message: 'No read-only client is published' });
      return requestToken(c).catch((err: unknown) => {
        this.onFail();
        throw err;
      });
    })().finally(() => {
      this.pending = undefined;
    });
    this.token = await this.pending;
    return this.token.value;
  }
  forget(): void {
    this.token = undefined;
  }
}

let viewerConfig: Promise<Credentials | undefined> | undefined;
const viewer = new TokenHolder(
  () => {
    viewerConfig ??= fetch('/ui/config.json', { cache: 'no-store' })
      .then((r) => r.json())
      .then((c: { viewer: Credentials | null }) => c.viewer ?? undefined)
      .catch(() => {
        viewerConfig = undefined;
        return undefined;
      });
    return viewerConfig;
  },
  // A restarted server gave the viewer client a new secret: read it again next time.
  () => {
    viewerConfig = undefined;
  },
);

let trader: { holder: TokenHolder; clientId: string } | undefined;

/** Signs in: takes a token now (so a wrong secret is reported at once); nothing is stored. */
export async function signIn(clientId: string, clientSecret: string): Promise<void> {
  const holder = new TokenHolder(async () => ({ clientId, clientSecret }));
  await holder.get();
  trader = { holder, clientId };
}

export function signOut(): void {
  trader = undefined;
}

export function signedInAs(): string | undefined {
  return trader?.clientId;
}

/** The token for market data: the trader's when signed in, else the viewer's. */
export function marketDataToken(): Promise<string | undefined> {
  return trader ? trader.holder.get() : viewer.get();
}

export function traderToken(): Promise<string | undefined> {
  if (!trader) return Promise.reject(new ApiError(401, { code: 'NOT_SIGNED_IN', message: 'Sign in first' }));
  return trader.holder.get();
}

const etags = new Map<string, { etag: string; body: unknown }>();

export interface Conditional<T> {
  body: T;
  /** False when the server answered 304 (the remembered body is returned). */
  changed: boolean;
}

/** A market-data GET with If-None-Match. */
export async function getMarketData<T>(path: string): Promise<Conditional<T>> {
  const token = await marketDataToken();
  const known = etags.get(path);
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (known) headers['if-none-match'] = known.etag;
  const r = await fetch(path, { headers, cache: 'no-store' });
  if (r.status === 304 && known) return { body: known.body as T, changed: false };
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    if (r.status === 401) (trader ? trader.holder : viewer).forget();
    throw new ApiError(r.status, body as ApiErrorBody);
  }
  const etag = r.headers.get('etag');
  if (etag) {
    if (etags.size > 500) etags.clear();
    etags.set(path, { etag, body });
  }
  return { body: body as T, changed: true };
}

/** A market-data read sent as a POST (getMarketsByEvents, GraphQL): never cached. */
export async function postMarketData<T>(path: string, body: unknown): Promise<T> {
  const token = await marketDataToken();
  const r = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) {
    if (r.status === 401) (trader ? trader.holder : viewer).forget();
    throw new ApiError(r.status, json as ApiErrorBody);
  }
  return json as T;
}

/** An authenticated call for the signed-in trader (account reads, orders). */
export async function traderCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = await traderToken();
  const r = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, json as ApiErrorBody);
  return json as T;
}

/** The parlay price needs no token (docs/http.md "Parlay price"). */
export async function requestParlay(outcomeIds: string[]): Promise<ParlayOffer> {
  const r = await fetch('/nbx/v1/parlay/request/unauthenticated', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcomes: outcomeIds.map((id) => ({ id })), boostId: null }),
    cache: 'no-store',
  });
  const json = await r.json().catch(() => ({}));
  if (!r.ok) throw new ApiError(r.status, json as ApiErrorBody);
  const offers = json as ParlayOffer[];
  if (!Array.isArray(offers) || offers.length === 0)
    throw new ApiError(r.status, { message: 'The server answered no offer' });
  return offers[0]!;
}

// --- wire types (docs/http.md) --------------------------------------------------------------------

export interface Team {
  id: string;
  name: string;
  symbol: string;
}
export interface EventWire {
  id: string;
  type: string;
  status: string;
  description: string;
  league: string;
  scheduledStart: string;
  marketIds: string[];
  game?: { homeTeam: Team; awayTeam: Team; status: string };
}
export interface Level {
  price: number;
  qty: number;
}
export interface LadderRow {
  id: string;
  price: number;
  qty: number;
  created_at: string;
}
export interface BookWire {
  bids: Level[];
  asks: Level[];
  outcomeLadders: { outcomeId: string; bids: LadderRow[] }[];
  seq: number;
  asOf: string;
}
export interface OutcomeWire {
  id: string;
  description: string;
  type: string;
  status: string;
  index: number;
  last: number | null;
}
export interface MarketWire {
  id: string;
  type: string;
  description: string;
  status: string;
  eventId: string;
  strike: number | null;
  volume: number;
  outcomeIds: string[];
  outcomes: OutcomeWire[];
  book: BookWire;
}
export interface LocksWire {
  systemLock: { id: string; reason?: string } | null;
  lockedEventIds: string[];
}
export interface ParlayOffer {
  price: string;
  status?: string;
  expiresAt?: string;
  maxQty?: number;
  maxQuantity?: number;
  legs: { price: string; outcomeId?: string }[];
  [k: string]: unknown;
}
export interface OrderWire {
  id: string;
  outcomeId: string;
  marketId: string;
  price: number;
  qty: number;
  originalQty: number;
  filledQty?: number;
  currency: string;
  tif: string;
  status: string;
  created_at: string;
}
export interface FillWire {
  id: string;
  orderId: string;
  outcomeId: string;
  marketId: string;
  price: number;
  qty: number;
  isTaker: boolean;
  isWash: boolean;
  created_at?: string;
  createdAt?: string;
}
export interface PositionWire {
  outcomeId: string;
  marketId?: string;
  size?: number;
  qty?: number;
  cost?: number;
  [k: string]: unknown;
}
