// Wire shapes of the catalog and market data (docs/http.md "The production wire") are declared
// with what produces them, in src/wire/catalog-schemas.ts and src/wire/book.ts; the route schemas
// use them from here.

export { bookSchema } from '../../wire/book.ts';
export {
  eventSchema,
  gameSchema,
  lockSchema,
  locksSchema,
  marketSchema,
  marketWithBookSchema,
  outcomeSchema,
  teamSchema,
} from '../../wire/catalog-schemas.ts';

export const stringList = { type: 'array', items: { type: 'string' } } as const;
