import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { hasScope, type Scope } from '../access/principal.js';
import { AppError } from '../shared/errors.js';
import { idKindOf, type IdKind } from '../shared/ids.js';
import type { Context } from './context.js';

/** GraphQL type behind each id prefix, so `node(id:)` takes the same ids REST shows. */
const typenameForIdKind: Partial<Record<IdKind, string>> = {
  booking: 'Booking',
  service: 'Service',
  event: 'Event',
  attraction: 'Attraction',
  category: 'Category',
  image: 'Image',
  webhookEndpoint: 'WebhookEndpoint',
  bookingEvent: 'BookingEvent',
  apiKey: 'ApiKey',
};

export const complexityLimits = { complexity: 5000, depth: 12, breadth: 300 };

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { scope: Scope; authenticated: boolean };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, DataloaderPlugin, ComplexityPlugin],
  scopeAuth: {
    // Refuse a subscription when it is made, not silently at its first event.
    authorizeOnSubscribe: true,
    authScopes: (context) => ({
      authenticated: context.principal !== null,
      scope: (scope: Scope) => hasScope(context.principal, scope),
    }),
    unauthorizedError: (_parent, context) =>
      context.principal
        ? new AppError('insufficient_scope', 'The API key lacks the scope this field needs.')
        : new AppError('unauthenticated', 'Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.'),
  },
  prisma: {
    client: (context) => context.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // Ids already name their type through their prefix, so they are used as global ids unchanged.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => {
      const kind = idKindOf(globalID);
      const typename = kind ? typenameForIdKind[kind] : undefined;
      if (!typename) throw new AppError('not_found', `No record with id "${globalID}".`);
      return { typename, id: globalID };
    },
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: complexityLimits,
    complexityError: (kind, result) => {
      const measure = kind.toLowerCase() as 'depth' | 'breadth' | 'complexity';
      const limit = { depth: result.maxDepth, breadth: result.maxBreadth, complexity: result.maxComplexity }[measure];
      return new AppError('query_too_complex', `The query's ${measure} ${result[measure]} is over the limit of ${limit}.`);
    },
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/** The builder's resolved type parameters, for helpers that take Pothos field builders. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
