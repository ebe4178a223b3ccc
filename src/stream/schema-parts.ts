// The small JSON Schema parts every stream message schema repeats (message-schemas.ts,
// private-message-schemas.ts).

export const uuid = { type: 'string', format: 'uuid' } as const;
export const currencySchema = { type: 'string', enum: ['CASH', 'COIN'] } as const;
export const isoTime = { type: 'string', format: 'date-time' } as const;
export const nonNegInt = { type: 'integer', minimum: 0 } as const;
