// The ledger row of GET /nbx/v2/emm/transactions (docs/http.md, "Transactions").

import { LEDGER_KINDS } from '../../runtime/ledger-kinds.ts';
import { currency, nullableIsoTime, uuid } from './common.ts';

export const transactionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Stable row id: journal seq and position in the command' },
    kind: { type: 'string', enum: [...LEDGER_KINDS] },
    amount: {
      type: 'string',
      pattern: '^-?[0-9]+\\.[0-9]{5}$',
      description: 'Signed change of the wallet, currency units with 5 decimals',
    },
    currency,
    createdAt: {
      ...nullableIsoTime,
      description: 'Time of the command; null on rows older than the ledger refs',
    },
    orderId: uuid,
    fillId: { type: 'string' },
    marketId: uuid,
  },
  required: ['id', 'kind', 'amount', 'currency', 'createdAt'],
  additionalProperties: false,
} as const;
