import { builder, nodeForApiKeys, refusalFor } from '../graphql/builder.js';
import { upperCaseEnum } from '../graphql/enums.js';
import { Plan } from '../generated/prisma/enums.js';
import { grantedScopes, hasScope, isApiKey, type Principal } from './principal.js';

export const PlanEnum = upperCaseEnum('Plan', Object.values(Plan));

builder.prismaObject('Account', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ApiKeyNode = builder.prismaNode('ApiKey', {
  id: { field: 'id' },
  authScopes: { authenticated: true },
  // A widget token may not read keys at all: node(id:) and nodes(ids:) refuse it in the id's place, before any lookup.
  extensions: nodeForApiKeys(),
  nullable: true,
  // A key sees only itself (its settings are its own business, even within the account); operators see every key.
  findUnique: (id, context) => {
    // Never reached by another credential through node/nodes (refused in the id's place above); kept for any other lookup.
    if (!isApiKey(context.principal)) throw refusalFor(context.principal, []);
    return { id, ...(hasScope(context.principal, 'admin') ? {} : { AND: { id: context.principal.keyId } }) };
  },
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    name: t.exposeString('name', { nullable: true }),
    plan: t.expose('plan', { type: PlanEnum }),
    scopes: t.exposeStringList('scopes'),
    allowedOrigins: t.exposeStringList('allowedOrigins'),
    ipAllowlist: t.exposeStringList('ipAllowlist'),
    promo: t.exposeBoolean('promo'),
    requireSignature: t.exposeBoolean('requireSignature'),
    signingEnabled: t.boolean({
      description: 'The key has a signing secret and may sign requests (X-Signature).',
      resolve: (key) => key.signingSecret !== null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    account: t.relation('account'),
  }),
});

builder.prismaObject('WidgetToken', {
  description:
    "A public token for the embeddable widget: reads the directory and services' availability (and books, with allowBooking), only from its allowed origins. Its id is the token.",
  fields: (t) => ({
    id: t.exposeID('id'),
    accountId: t.exposeID('accountId'),
    name: t.exposeString('name', { nullable: true }),
    allowedOrigins: t.exposeStringList('allowedOrigins'),
    rateLimitPerMinute: t.exposeInt('rateLimitPerMinute'),
    allowBooking: t.exposeBoolean('allowBooking', { description: 'Also holds, books a hold and joins waitlists (scope bookings:book).' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

/** Other domains add their fields to Viewer (analytics: usage and alerts). */
export const Viewer = builder.objectRef<Principal>('Viewer').implement({
  description: 'The credential making the request: an API key, or a widget token.',
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    scopes: t.stringList({ resolve: (principal) => [...grantedScopes(principal)] }),
    key: t.prismaField({
      type: 'ApiKey',
      nullable: true,
      resolve: (query, principal, _args, context) => (principal.kind === 'api_key' ? context.prisma.apiKey.findUnique({ ...query, where: { id: principal.keyId } }) : null),
    }),
    account: t.prismaField({
      type: 'Account',
      resolve: (query, principal, _args, context) => context.prisma.account.findUniqueOrThrow({ ...query, where: { id: principal.accountId } }),
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    description: 'The calling API key, its account and its usage.',
    authScopes: { authenticated: true },
    resolve: (_root, _args, context) => context.principal!,
  }),
);
