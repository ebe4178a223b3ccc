// Type augmentation shared by the route plugins: the bearer guard (src/http/plugins/bearer.ts)
// decorates the instance with requireScope and sets request.principal.
import type { preHandlerAsyncHookHandler, preHandlerHookHandler } from 'fastify';
import type { Principal, Scope } from '../auth/scopes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler that demands a valid bearer token carrying `scope` (RFC 6750). */
    requireScope(scope: Scope): preHandlerHookHandler | preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}
