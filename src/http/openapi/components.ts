// Named components of the OpenAPI document. The route schemas share plain objects (src/http/schemas)
// that Fastify's Ajv validates with; @fastify/swagger inlines them wherever they are used, which
// leaves generated clients with anonymous types. This table names the shared shapes; the document
// transform (document.ts) moves each into components.schemas and points every use at it with a
// $ref, so the routes and their validation stay exactly as they are (docs/openapi.md).

import {
  createdEventSchema,
  eventBodySchema,
  leagueSchema,
  lockBodySchema,
  marketBodySchema,
  moneyBodySchema,
  settleBodySchema,
  teamWithLeagueSchema,
} from '../schemas/admin.ts';
import {
  bookSchema,
  eventSchema,
  gameSchema,
  lockSchema,
  marketSchema,
  marketWithBookSchema,
  outcomeSchema,
  teamSchema,
} from '../schemas/catalog.ts';
import { errorEnvelope } from '../schemas/common.ts';
import {
  balanceSchema,
  fillSchema,
  itemErrorSchema,
  openCostsSchema,
  orderSchema,
  orderWithFillsSchema,
  placeBodySchema,
  positionSchema,
  walletSchema,
} from '../schemas/trading.ts';

/** Component name → the shared schema object it names. */
export const NAMED_SCHEMAS: ReadonlyArray<readonly [string, unknown]> = [
  ['Error', errorEnvelope],
  ['Team', teamSchema],
  ['Game', gameSchema],
  ['Event', eventSchema],
  ['Outcome', outcomeSchema],
  ['Book', bookSchema],
  ['Market', marketSchema],
  ['MarketWithBook', marketWithBookSchema],
  ['Lock', lockSchema],
  ['Order', orderSchema],
  ['Fill', fillSchema],
  ['OrderWithFills', orderWithFillsSchema],
  ['ItemError', itemErrorSchema],
  ['PlaceOrderRequest', placeBodySchema],
  ['Position', positionSchema],
  ['Balance', balanceSchema],
  ['OpenCosts', openCostsSchema],
  ['Wallet', walletSchema],
  ['League', leagueSchema],
  ['TeamWithLeague', teamWithLeagueSchema],
  ['CreatedEvent', createdEventSchema],
  ['MoneyRequest', moneyBodySchema],
  ['CreateEventRequest', eventBodySchema],
  ['CreateMarketRequest', marketBodySchema],
  ['SettleRequest', settleBodySchema],
  ['LockRequest', lockBodySchema],
];
