// Every exchange route plugin in one registration, for buildApp's `features`:
//   await app.register(exchangeApi, { port, auth })   (auth: the `/trade` order-entry socket too)
// (after the bearer guard has decorated requireScope).

import type { FastifyInstance } from 'fastify';
import accountRoutes from './account.ts';
import adminExchangeRoutes from './admin-exchange.ts';
import boostRoutes from './boosts.ts';
import eventRoutes from './events.ts';
import type { ExchangeRouteOptions } from './exchange-common.ts';
import marketRoutes from './markets.ts';
import metadataRoutes from './metadata.ts';
import mmpRoutes from './mmp.ts';
import orderRoutes from './orders.ts';
import parlayRequestRoutes from './parlay-requests.ts';
import quoteRoutes from './quotes.ts';
import orderSocket from './trade.ts';
import tradeRoutes from './trades.ts';

export type { ExchangeRouteOptions };

export default async function exchangeApi(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  await app.register(metadataRoutes, opts);
  await app.register(eventRoutes, opts);
  await app.register(marketRoutes, opts);
  await app.register(tradeRoutes, opts);
  await app.register(orderRoutes, opts);
  await app.register(quoteRoutes, opts);
  await app.register(parlayRequestRoutes, opts);
  await app.register(boostRoutes, opts);
  await app.register(accountRoutes, opts);
  await app.register(mmpRoutes, opts);
  await app.register(adminExchangeRoutes, opts);
  if (opts.auth !== undefined)
    await app.register(orderSocket, {
      port: opts.port,
      auth: opts.auth,
      ...(opts.config ? { config: opts.config } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    });
}
