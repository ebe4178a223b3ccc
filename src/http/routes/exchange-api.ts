// Every exchange route plugin in one registration, for buildApp's `features`:
//   await app.register(exchangeApi, { port })
// (after the bearer guard has decorated requireScope).

import type { FastifyInstance } from 'fastify';
import accountRoutes from './account.ts';
import adminExchangeRoutes from './admin-exchange.ts';
import boostRoutes from './boosts.ts';
import eventRoutes from './events.ts';
import type { ExchangeRouteOptions } from './exchange-common.ts';
import marketRoutes from './markets.ts';
import metadataRoutes from './metadata.ts';
import orderRoutes from './orders.ts';
import parlayRequestRoutes from './parlay-requests.ts';
import tradeRoutes from './trades.ts';

export type { ExchangeRouteOptions };

export default async function exchangeApi(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  await app.register(metadataRoutes, opts);
  await app.register(eventRoutes, opts);
  await app.register(marketRoutes, opts);
  await app.register(tradeRoutes, opts);
  await app.register(orderRoutes, opts);
  await app.register(parlayRequestRoutes, opts);
  await app.register(boostRoutes, opts);
  await app.register(accountRoutes, opts);
  await app.register(adminExchangeRoutes, opts);
}
