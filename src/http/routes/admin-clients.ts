// The operator API for OAuth clients, scope `admin`. Every route declares its
// body, params and every response status, which feed the OpenAPI document.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { SCOPES } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { errorEnvelope } from '../schemas/common.ts';

export interface AdminClientsOptions {
  auth: AuthService;
}

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

const createBody = {
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
} as const;

const statusBody = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['active', 'disabled'] } },
  required: ['status'],
  additionalProperties: false,
} as const;

const rotateBody = {
  type: 'object',
  properties: { graceSeconds: { type: 'integer', minimum: 0, maximum: 30 * 86400, default: 0 } },
  additionalProperties: false,
} as const;

// Request types derived from the schemas above (docs/http.md "Validation and errors").
type ClientIdParams = FromSchema<typeof clientIdParams>;
type CreateBody = FromSchema<typeof createBody>;
type StatusBody = FromSchema<typeof statusBody>;
/** Optional: preValidation puts `{}` for a missing body, before Ajv applies the default. */
type RotateBody = FromSchema<typeof rotateBody, { keepDefaultedPropertiesOptional: true }>;

const authErrors = { 401: errorEnvelope, 403: errorEnvelope } as const;
const security = [{ bearer: [] }];

export default async function adminClientRoutes(
  app: FastifyInstance,
  opts: AdminClientsOptions,
): Promise<void> {
  const { auth } = opts;
  // Authenticated in onRequest: callers without the admin scope learn nothing from validation errors
  // and their bodies are never parsed.
  const admin = app.requireScope('admin');

  app.post<{ Body: CreateBody }>(
    '/admin/v1/clients',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Create an OAuth client',
        description:
          'The secret is returned once and never again. Trader scopes bring an account: accountId when given, a new one otherwise.',
        security,
        body: createBody,
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
          400: errorEnvelope,
          ...authErrors,
          404: errorEnvelope,
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

  app.get<{ Params: ClientIdParams }>(
    '/admin/v1/clients/:clientId',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'One OAuth client',
        security,
        params: clientIdParams,
        response: { 200: clientSchema, 400: errorEnvelope, ...authErrors, 404: errorEnvelope },
      },
    },
    async (request) => auth.getClient(request.params.clientId),
  );

  app.patch<{ Params: ClientIdParams; Body: StatusBody }>(
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
        body: statusBody,
        response: {
          200: clientSchema,
          400: errorEnvelope,
          ...authErrors,
          404: errorEnvelope,
          409: errorEnvelope,
        },
      },
    },
    async (request) => auth.setClientStatus(request.params.clientId, request.body.status),
  );

  app.post<{ Params: ClientIdParams; Body: RotateBody | undefined }>(
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
        body: rotateBody,
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
          400: errorEnvelope,
          ...authErrors,
          404: errorEnvelope,
          409: errorEnvelope,
        },
      },
    },
    async (request) => auth.rotateSecret(request.params.clientId, request.body?.graceSeconds ?? 0),
  );

  app.delete<{ Params: ClientIdParams }>(
    '/admin/v1/clients/:clientId',
    {
      onRequest: admin,
      schema: {
        tags: ['admin'],
        summary: 'Revoke a client and every token it holds',
        security,
        params: clientIdParams,
        response: { 200: clientSchema, 400: errorEnvelope, ...authErrors, 404: errorEnvelope },
      },
    },
    async (request) => auth.revokeClient(request.params.clientId),
  );
}
