import type { ApiKey } from '../generated/prisma/client.js';
import { builder } from '../graphql/builder.js';
import { pageById } from '../graphql/keyset-pages.js';
import type { Context } from '../graphql/context.js';
import { createAccount, createWidgetToken, issueApiKey, revokeApiKey, revokeWidgetToken, rotateApiKey } from './admin.js';
import { ApiKeyNode, PlanEnum } from './graphql-types.js';

/** Operator queries and mutations (scope `admin`); the REST routes under /v1/admin run these. */

const adminOnly = { scope: 'admin' } as const;

/** GraphQL gives absent optional fields as null; the domain rules treat them as not given. */
function givenFields(input: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined));
}

/** Every instance ends the credential's open connections (graphql-ws, SSE) and forgets its cached record. */
function announceRevoked<Credential extends { id: string }>(context: Context, credential: Credential): Credential {
  context.services.revokedCredentials.publish(credential.id);
  return credential;
}

const CreateAccountInput = builder.inputType('CreateAccountInput', {
  fields: (t) => ({ name: t.string({ required: true }) }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    accountId: t.id({ required: true }),
    plan: t.field({ type: PlanEnum, required: true }),
    scopes: t.stringList({ required: true, description: 'Any of bookings:read, bookings:write, bookings:book, webhooks:manage, directory:read, analytics:read, admin.' }),
    name: t.string(),
    allowedOrigins: t.stringList({ description: 'Origins (https://shop.example) that may call with this key from a browser.' }),
    ipAllowlist: t.stringList({ description: 'IPv4 and IPv6 addresses or CIDRs (IPv4 as four decimal numbers: 010.0.0.1 is refused); empty allows any address.' }),
    promo: t.boolean({ description: 'Unlimited until 2027-07-31 23:59:59 America/Chicago, then the plan limit.' }),
    requireSignature: t.boolean({ description: 'Reject unsigned requests (enterprise plan).' }),
  }),
});

const CreateWidgetTokenInput = builder.inputType('CreateWidgetTokenInput', {
  fields: (t) => ({
    accountId: t.id({ required: true }),
    allowedOrigins: t.stringList({ required: true }),
    rateLimitPerMinute: t.int(),
    name: t.string(),
    allowBooking: t.boolean({
      description:
        'The widget may also hold, release a hold, book a hold and join a waitlist (scope bookings:book); never read or change bookings. Every widget token reads services and their availability.',
    }),
  }),
});

interface IssuedApiKeyShape {
  record: ApiKey;
  key: string;
  signingSecret: string | null;
}

const IssuedApiKey = builder.objectRef<IssuedApiKeyShape>('IssuedApiKey').implement({
  description: 'A key with its secret, shown only in this answer; only a hash is stored.',
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyNode, resolve: (issued) => issued.record }),
    key: t.exposeString('key', { description: 'The whole credential, <KEY_ID>.<SECRET>.' }),
    signingSecret: t.exposeString('signingSecret', { nullable: true, description: 'HMAC signing secret, where signing is on.' }),
  }),
});

builder.queryFields((t) => ({
  accounts: t.prismaConnection({
    type: 'Account',
    cursor: 'id',
    authScopes: adminOnly,
    description: 'Every account (operators).',
    resolve: async (query, _root, _args, context) =>
      context.prisma.account.findMany(await pageById(query, {}, (where) => context.prisma.account.findUnique({ where, select: { id: true } }))),
  }),
  apiKeys: t.prismaConnection({
    type: 'ApiKey',
    cursor: 'id',
    authScopes: adminOnly,
    description: 'API keys, revoked ones included, optionally of one account (operators).',
    args: { accountId: t.arg.id() },
    resolve: async (query, _root, args, context) =>
      context.prisma.apiKey.findMany(
        await pageById(query, args.accountId ? { accountId: args.accountId } : {}, (where) => context.prisma.apiKey.findFirst({ where, select: { id: true } })),
      ),
  }),
  widgetTokens: t.prismaConnection({
    type: 'WidgetToken',
    cursor: 'id',
    authScopes: adminOnly,
    description: 'Widget tokens, optionally of one account (operators).',
    args: { accountId: t.arg.id() },
    resolve: async (query, _root, args, context) =>
      context.prisma.widgetToken.findMany(
        await pageById(query, args.accountId ? { accountId: args.accountId } : {}, (where) => context.prisma.widgetToken.findFirst({ where, select: { id: true } })),
      ),
  }),
}));

builder.mutationFields((t) => ({
  createAccount: t.prismaField({
    type: 'Account',
    authScopes: adminOnly,
    args: { input: t.arg({ type: CreateAccountInput, required: true }) },
    resolve: (_query, _root, args, context) => createAccount(context.prisma, args.input),
  }),
  createApiKey: t.field({
    type: IssuedApiKey,
    authScopes: adminOnly,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, args, context) => issueApiKey(context.prisma, context.services.secrets, givenFields(args.input)),
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    authScopes: adminOnly,
    description: 'Revokes a key; repeating it changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, context) => announceRevoked(context, await revokeApiKey(context.prisma, args.id, context.services.clock())),
  }),
  rotateApiKey: t.field({
    type: IssuedApiKey,
    authScopes: adminOnly,
    description: 'Gives the key a new secret (and signing secret); the old ones stop working.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => {
      const rotated = await rotateApiKey(context.prisma, context.services.secrets, args.id);
      announceRevoked(context, rotated.record);
      return rotated;
    },
  }),
  createWidgetToken: t.prismaField({
    type: 'WidgetToken',
    authScopes: adminOnly,
    args: { input: t.arg({ type: CreateWidgetTokenInput, required: true }) },
    resolve: (_query, _root, args, context) => createWidgetToken(context.prisma, givenFields(args.input)),
  }),
  revokeWidgetToken: t.prismaField({
    type: 'WidgetToken',
    authScopes: adminOnly,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_query, _root, args, context) => announceRevoked(context, await revokeWidgetToken(context.prisma, args.id, context.services.clock())),
  }),
}));
