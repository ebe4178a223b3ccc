// `tickbook clients create|list|rotate|revoke|disable|enable`: calls a running server's admin API
// (--url, else PORT/HOST, else the address in the credentials file: src/cli/admin-api.ts) with the
// operator credentials.

import type { ClientView, CreatedClient, RotatedSecret } from '../../auth/service.ts';
import { adminApi as api, positionals, urlOption } from '../admin-api.ts';
import { printResult, table } from '../output.ts';
import { CliError, type Command, type CommandArgs } from '../types.ts';

/** The one client id a command takes, encoded for the request path. */
function oneId(args: CommandArgs, cmd: string): string {
  const [id] = positionals(args, 1, `clients ${cmd} <clientId>`);
  return encodeURIComponent(id!);
}

export const clientsCreate: Command = {
  name: 'clients create',
  summary: 'Create an OAuth client; prints its secret once',
  usage:
    '--name NAME [--scopes read:tape,read:trader,execute:trader,make:parlay,…] [--account-id ID] [--url URL]',
  options: {
    ...urlOption,
    name: { type: 'string' },
    scopes: { type: 'string' },
    'account-id': { type: 'string' },
  },
  async run(args, ctx) {
    const name = args.values.name;
    if (typeof name !== 'string' || name === '') throw new CliError('--name is required', 2);
    const scopes =
      typeof args.values.scopes === 'string' ? args.values.scopes.split(/[ ,]+/).filter(Boolean) : undefined;
    const accountId = typeof args.values['account-id'] === 'string' ? args.values['account-id'] : undefined;
    const created = await api(args, ctx).call<CreatedClient>('POST', '/admin/v1/clients', {
      name,
      ...(scopes ? { scopes } : {}),
      ...(accountId ? { accountId } : {}),
    });
    printResult(ctx, created, () =>
      [
        `client_id:     ${created.clientId}`,
        `client_secret: ${created.clientSecret}`,
        `scopes:        ${created.scopes.join(' ')}`,
        `account_id:    ${created.accountId ?? '-'}`,
        '',
        'The secret is shown only now; store it safely.',
      ].join('\n'),
    );
    return 0;
  },
};

export const clientsList: Command = {
  name: 'clients list',
  summary: 'List OAuth clients',
  usage: '[--url URL]',
  options: urlOption,
  async run(args, ctx) {
    const { clients } = await api(args, ctx).call<{ clients: ClientView[] }>('GET', '/admin/v1/clients');
    printResult(ctx, clients, () =>
      table(clients as unknown as Record<string, unknown>[], [
        'clientId',
        'name',
        'status',
        'scopes',
        'accountId',
        'createdAt',
      ]),
    );
    return 0;
  },
};

export const clientsRotate: Command = {
  name: 'clients rotate',
  summary: 'Rotate a client secret; the old one keeps working for --grace seconds',
  usage: '<clientId> [--grace SECONDS] [--url URL]',
  options: { ...urlOption, grace: { type: 'string', default: '0' } },
  async run(args, ctx) {
    const id = oneId(args, 'rotate');
    const grace = Number(args.values.grace);
    if (!Number.isSafeInteger(grace) || grace < 0)
      throw new CliError('--grace must be a whole number of seconds', 2);
    const r = await api(args, ctx).call<RotatedSecret>('POST', `/admin/v1/clients/${id}/rotate-secret`, {
      graceSeconds: grace,
    });
    printResult(ctx, r, () =>
      [
        `client_id:     ${r.clientId}`,
        `client_secret: ${r.clientSecret}`,
        `old secret:    ${r.oldSecretExpiresAt ? `valid until ${r.oldSecretExpiresAt}` : 'no longer valid'}`,
      ].join('\n'),
    );
    return 0;
  },
};

const statusCommand = (name: 'revoke' | 'disable' | 'enable', summary: string): Command => ({
  name: `clients ${name}`,
  summary,
  usage: '<clientId> [--url URL]',
  options: urlOption,
  async run(args, ctx) {
    const id = oneId(args, name);
    const a = api(args, ctx);
    const view =
      name === 'revoke'
        ? await a.call<ClientView>('DELETE', `/admin/v1/clients/${id}`)
        : await a.call<ClientView>('PATCH', `/admin/v1/clients/${id}`, {
            status: name === 'enable' ? 'active' : 'disabled',
          });
    printResult(ctx, view, () => `${view.clientId}: ${view.status}`);
    return 0;
  },
});

export const clientsRevoke = statusCommand('revoke', 'Revoke a client and every token it holds');
export const clientsDisable = statusCommand(
  'disable',
  'Disable a client (token requests get 403, its tokens stop working)',
);
export const clientsEnable = statusCommand('enable', 'Re-enable a disabled client');
