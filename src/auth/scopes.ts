// Scopes (docs/auth.md). read:tape — market data (metadata, events, markets, books);
// read:trader — the caller's own account (balance, positions, orders, fills);
// execute:trader — order entry; make:parlay — quoting parlay requests as a market maker
// (docs/parlays.md "Quotes"); admin — the operator API.

export const SCOPES = ['read:tape', 'read:trader', 'execute:trader', 'make:parlay', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a new trader client is granted unless told otherwise (the production token's set). */
export const DEFAULT_TRADER_SCOPES: readonly Scope[] = ['execute:trader', 'read:trader', 'read:tape'];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/**
 * How a caller presents its token, as the OpenAPI and AsyncAPI documents declare it: an RFC 6750
 * bearer token that is a JWT (RFC 9068). `how` says where it goes on that interface.
 */
export function bearerScheme(how: string) {
  return { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: how } as const;
}

/** The authenticated caller of a protected route, set by the bearer guard. */
export interface Principal {
  clientId: string;
  /** The account the client acts for (every trader client has one). */
  accountId: string | null;
  scopes: ReadonlySet<Scope>;
  /** The token's jti. */
  tokenId: string;
}
