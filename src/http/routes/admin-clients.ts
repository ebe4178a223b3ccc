// The operator API for OAuth clients, scope `admin`. Every route declares its
// body, params and every response status, which feed the OpenAPI document.

import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';

export interface AdminClientsOptions {
  auth: AuthService;
}

const errorSchema = {
  type: 'object',
  description: 'Error envelope (DESIGN.md §8)',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    code: { type: 'string' },
    details: {},
  },
  required: ['statusCode', 'error', 'message', 'code'],
} as const;

const scopesSchema = { type: 'array', items: { type: 'string', enum: [...SCOPES] } } as const;

const clientSchema = {
  type: 'object',
  properties: {
    clientId: { type: 'string' },
    name: { type: 'string' },
    scopes: scopesSchema,
    accountId: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['active', 'disabled', 'revoked'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    oldSecretExpiresAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'End of the previous secret’s grace period',
    },
  },
  required: [
    'clientId',
    'name',
    'scopes',
    'accountId',
    'status',
    'createdAt',
    'updatedAt',
    'oldSecretExpiresAt',
  ],
} as const;

const clientIdParams = {
  type: 'object',
  properties: { clientId: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['clientId'],
} as const;

const authErrors = { 401: errorSchema, 403: errorSchema } as const;
const security = [{ bearer: [] }];

export default async function adminClientRoutes(
  app: FastifyInstance,
  opts: AdminClientsOptions,
): Promise<void> {
  const { auth } = opts;
  // Authenticated in onRequest: callers without the admin scope learn nothing from validation errors
  // and their bodies are never parsed.
  const admin = app.requireScope('admin');

  app.post<{ Body: { name: string; scopes?: string[]; accountId?: string } }>(
    '/admin/v1/clients',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Create an OAuth client',
        description:
          'The secret is returned once and never again. Trader scopes bring an account: accountId when given, a new one otherwise.',
        security,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200 },
            scopes: {
              ...scopesSchema,
              minItems: 1,
              uniqueItems: true,
              description: 'Default: the three trader scopes',
            },
            accountId: { type: 'string', minLength: 1, maxLength: 200 },
          },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          201: {
            type: 'object',
            properties: {
              clientId: { type: 'string' },
              clientSecret: { type: 'string', description: 'Shown once' },
              scopes: scopesSchema,
              accountId: { type: ['string', 'null'] },
            },
            required: ['clientId', 'clientSecret', 'scopes', 'accountId'],
          },
          400: errorSchema,
          ...authErrors,
          404: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const created = await auth.createClient(request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/admin/v1/clients',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'List OAuth clients',
        security,
        response: {
          200: {
            type: 'object',
            properties: { clients: { type: 'array', items: clientSchema } },
            required: ['clients'],
          },
          ...authErrors,
        },
      },
    },
    async () => ({ clients: auth.listClients() }),
  );

  app.get<{ Params: { clientId: string } }>(
    '/admin/v1/clients/:clientId',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'One OAuth client',
        security,
        params: clientIdParams,
        response: { 200: clientSchema, ...authErrors, 404: errorSchema },
      },
    },
    async (request) => auth.getClient(request.params.clientId),
  );

  app.patch<{ Params: { clientId: string }; Body: { status: 'active' | 'disabled' } }>(
    '/admin/v1/clients/:clientId',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Disable or re-enable a client',
        description:
          'A disabled client gets 403 access_denied from the token endpoint and its tokens are rejected.',
        security,
        params: clientIdParams,
        body: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['active', 'disabled'] } },
          required: ['status'],
          additionalProperties: false,
        },
        response: { 200: clientSchema, 400: errorSchema, ...authErrors, 404: errorSchema, 409: errorSchema },
      },
    },
    async (request) => auth.setClientStatus(request.params.clientId, request.body.status),
  );

  app.post<{ Params: { clientId: string }; Body: { graceSeconds?: number } | undefined }>(
    '/admin/v1/clients/:clientId/rotate-secret',
    {
      onRequest: admin,
      // The body is optional: no body means no grace period.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
      schema: {
        tags: ['admin'],
        summary: 'Rotate a client secret',
        description:
          'Returns the new secret once. With graceSeconds the previous secret keeps working that long.',
        security,
        params: clientIdParams,
        body: {
          type: 'object',
          properties: { graceSeconds: { type: 'integer', minimum: 0, maximum: 30 * 86400, default: 0 } },
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: {
              clientId: { type: 'string' },
              clientSecret: { type: 'string', description: 'Shown once' },
              oldSecretExpiresAt: { type: ['string', 'null'], format: 'date-time' },
            },
            required: ['clientId', 'clientSecret', 'oldSecretExpiresAt'],
          },
          400: errorSchema,
          ...authErrors,
          404: errorSchema,
          409: errorSchema,
        },
      },
    },
    async (request) => auth.rotateSecret(request.params.clientId, request.body?.graceSeconds ?? 0),
  );

  app.delete<{ Params: { clientId: string } }>(
    '/admin/v1/clients/:clientId',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Revoke a client and every token it holds',
        security,
        params: clientIdParams,
        response: { 200: clientSchema, ...authErrors, 404: errorSchema },
      },
    },
    async (request) => auth.revokeClient(request.params.clientId),
  );
}
