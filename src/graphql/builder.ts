import SchemaBuilder from '@pothos/core';
import ComplexityPlugin, { type FieldComplexityValue } from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { getNamedType, getNullableType, isListType, type GraphQLField, type GraphQLResolveInfo } from 'graphql';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { hasScope, insufficientScope, isApiKey, scopeChecksFor, type Principal, type Scope } from '../access/principal.js';
import { AppError } from '../shared/errors.js';
import { fastPaths } from '../fast-paths.js';
import { idKindOf, type IdKind } from '../shared/ids.js';
import ArgumentChecksPlugin, { cursorArgument, pageSizeArgument, pageSizes } from './argument-checks.js';
import type { Context } from './context.js';
import { createPlanCache } from './plan-cache.js';

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
  hold: 'Hold',
  waitlistEntry: 'WaitlistEntry',
};

/** The typename of a global id that names no node type. */
const namelessNode = '';

/** The most ids one `nodes(ids:)` call resolves. */
const maxNodeIds = 100;

const nodeScopeExtension = 'hallowgateNodeScope';
const answerScopeExtension = 'hallowgateAnswerScope';

/**
 * Type `extensions` for a type whose objects need `scope` (or any one of `scopes`), checked where
 * they are reached: the root fields that lead to them (their own authScopes) and node/nodes (here),
 * before anything is loaded. Cheaper than a type scope, which Pothos checks on every field of every
 * object, or as an `isTypeOf` that reads the context (which graphql-jit cannot call); so only root
 * fields and types that need one of the same scopes may lead to such a type
 * (test/access/widget-scope.test.ts walks the schema for any other).
 * `answeredTo`: scopes that see such objects only as the answer of a mutation they may call (the
 * hold or booking a booking widget token just made), never through node/nodes or a query.
 */
export function nodeScope(scopes: Scope | readonly Scope[], answeredTo: readonly Scope[] = []) {
  return { [nodeScopeExtension]: typeof scopes === 'string' ? [scopes] : scopes, [answerScopeExtension]: answeredTo };
}

const apiKeysOnlyExtension = 'hallowgateNodeForApiKeys';

/** Type `extensions` for a type whose objects only API keys may reach: through node/nodes, any other credential is refused in the id's place. */
export function nodeForApiKeys() {
  return { [apiKeysOnlyExtension]: true };
}

/** The scopes, any one of which a type's objects need (nodeScope). */
export function nodeScopeOf(type: { extensions: Readonly<Record<string, unknown>> } | undefined): readonly Scope[] | undefined {
  return type?.extensions[nodeScopeExtension] as readonly Scope[] | undefined;
}

/** The scopes that see a type's objects only as a mutation's answer (nodeScope's `answeredTo`). */
export function answerScopeOf(type: { extensions: Readonly<Record<string, unknown>> } | undefined): readonly Scope[] {
  return (type?.extensions[answerScopeExtension] as readonly Scope[] | undefined) ?? [];
}

/**
 * Records for node ids, in order: null for an id naming no node type, or no record the caller may
 * see (every node's lookup is nullable and scoped to the caller), a refusal in the place of an id
 * whose type needs a scope (or an API key) the caller lacks, without failing the others.
 */
async function resolveNodeIds(context: Context, info: GraphQLResolveInfo, ids: readonly { typename: string; id: string }[]): Promise<unknown[]> {
  const refusals = ids.map((id) => {
    const type = id.typename === namelessNode ? undefined : (info.schema.getType(id.typename) ?? undefined);
    if (type?.extensions[apiKeysOnlyExtension] && !isApiKey(context.principal)) return refusalFor(context.principal, []);
    const scopes = nodeScopeOf(type);
    return scopes && !scopes.some((scope) => hasScope(context.principal, scope)) ? refusalFor(context.principal, scopes) : undefined;
  });
  const records = await resolveNodes(
    builder,
    context,
    info,
    ids.map((id, index) => (id.typename === namelessNode || refusals[index] ? null : id)),
  );
  // An error in a list's place is an error at that place only (both executors).
  return records.map((record, index) => refusals[index] ?? record);
}

/** Why a caller may not have what needs `missing` (an API key when empty): 401 without a credential, else 403. */
export function refusalFor(principal: Principal | null, missing: readonly Scope[]): AppError {
  if (!principal) return new AppError('unauthenticated', 'Authenticate with Authorization: Bearer <KEY_ID>.<SECRET>.');
  return insufficientScope(missing, principal.kind === 'widget_token' && principal.allowBooking ? bookingWidgetLimits : undefined);
}

/** Why a booking widget token is refused: it is public, so it may act for one visitor, never read what others booked. */
export const bookingWidgetLimits = "A booking widget token holds, books a hold and joins waitlists; it never lists, reads or changes the account's bookings.";

/** The scopes a refused field asked for (any one would have done); none when it asked for an API key. */
function scopesMissingIn(failure: AuthFailure): Scope[] {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      if (failure.scope === 'scope') return [failure.parameter as Scope];
      return failure.scope === 'anyScope' ? [...(failure.parameter as readonly Scope[])] : [];
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return [...new Set(failure.failures.flatMap(scopesMissingIn))];
    default:
      return [];
  }
}

/**
 * The cost of a query: every field costs 1, and what is selected under a list counts once per item
 * it may hold: the page size (`first`/`last`, else 20, at most 100) for a connection, the most items
 * a list can return where its arguments or the rules of its data bound it (listOfAtMost: a day of
 * availability, the ids of `nodes`), else `listMultiplier` times. Introspection fields count the
 * same way. So cost bounds the fields of the answer, and the work behind them, before anything runs;
 * the limit (room for one full introspection query) keeps answers to a few MB.
 * Depth counts every level, introspection and fragments included; breadth counts selected fields.
 */
export const complexityLimits = { complexity: 60_000, depth: 15, breadth: 300 };

export const listMultiplier = 10;

/** The context to weigh a document at its largest with: every page and every list at its most items, whatever the arguments. */
export const largestPages = Object.freeze({});

/**
 * The `complexity` of a list field that returns at most `items(args)` items, and never more than
 * `largest` (its arguments' own limits): what is selected under it counts once per item.
 */
export function listOfAtMost<Args>(largest: number, items: (args: Args) => number = () => largest) {
  return (args: Args, context: object) => ({ field: 1, multiplier: context === largestPages ? largest : Math.max(0, Math.min(items(args), largest)) });
}

/** A connection's selection counts once per item of its page; its `edges` list multiplies it by listMultiplier again, hence the division. */
function connectionMultiplier(args: Record<string, unknown>, context: object): number {
  const pageArgument = context === largestPages ? pageSizes.max : [args['first'], args['last']].find((value) => typeof value === 'number');
  const page = Math.min(typeof pageArgument === 'number' ? Math.max(pageArgument, 0) : pageSizes.default, pageSizes.max);
  return page / listMultiplier;
}

function fieldComplexity(args: Record<string, unknown>, context: object, field: Pick<GraphQLField<unknown, unknown>, 'type' | 'args'>): FieldComplexityValue {
  if (getNamedType(field.type).name.endsWith('Connection') && field.args.some((arg) => arg.name === 'first')) return { field: 1, multiplier: connectionMultiplier(args, context) };
  return isListType(getNullableType(field.type)) ? { field: 1, multiplier: listMultiplier } : 1;
}

/** The `complexity` of a connection whose arguments may ask for work besides its page: `work(args)` more, at its most for the largest pages. */
export function connectionWith<Args extends Record<string, unknown>>(largestWork: number, work: (args: Args) => number) {
  return (args: Args, context: object) => ({ field: 1 + (context === largestPages ? largestWork : work(args)), multiplier: connectionMultiplier(args, context) });
}

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { scope: Scope; anyScope: readonly Scope[]; authenticated: boolean; widgetToken: boolean };
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
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, ComplexityPlugin, ArgumentChecksPlugin],
  scopeAuth: {
    // Refuse a subscription when it is made, not silently at its first event.
    authorizeOnSubscribe: true,
    // `authenticated` means an API key: a widget token holds only directory:read, so every field
    // that is not explicitly a directory read refuses it, but for what names `widgetToken` (what
    // is public beyond the directory: services and their availability).
    authScopes: (context) => scopeChecksFor(context.principal),
    unauthorizedError: (_parent, context, _info, result) => refusalFor(context.principal, scopesMissingIn(result.failure)),
  },
  prisma: {
    client: (context) => context.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    // The plan-cache fast path: query plans kept across requests (src/graphql/plan-cache.ts).
    planCache: fastPaths['plan-cache'] ? createPlanCache() : undefined,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // Ids already name their type through their prefix, so they are used as global ids unchanged.
    encodeGlobalID: (_typename, id) => String(id),
    // The node-ids fast path: an id read from the record is answered at once, not as a promise each.
    synchronousGlobalIDs: fastPaths['node-ids'],
    // Text that names no node type decodes to no type, and node(id:) answers it with null.
    decodeGlobalID: (globalID) => {
      const kind = idKindOf(globalID);
      return { typename: (kind && typenameForIdKind[kind]) || namelessNode, id: globalID };
    },
    nodeQueryOptions: { resolve: async (_root, { id }, context, info) => (await resolveNodeIds(context, info, [id]))[0] },
    nodesQueryOptions: {
      complexity: listOfAtMost<{ ids: readonly unknown[] }>(maxNodeIds, (args) => args.ids.length),
      resolve: (_root, { ids }, context, info) => {
        if (ids.length > maxNodeIds) {
          throw new AppError('invalid_parameter', `nodes takes at most ${maxNodeIds} ids.`, {
            fieldErrors: [{ field: 'ids', code: 'too_many', message: `Send at most ${maxNodeIds} ids.` }],
          });
        }
        return resolveNodeIds(context, info, ids);
      },
    },
    afterArgOptions: { extensions: { [cursorArgument]: true } },
    beforeArgOptions: { extensions: { [cursorArgument]: true } },
    firstArgOptions: { extensions: { [pageSizeArgument]: true } },
    lastArgOptions: { extensions: { [pageSizeArgument]: true } },
  },
  // Only the measure: useQueryLimits enforces the limits before execution, for every document but the REST table's.
  complexity: { fieldComplexity },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

/** The builder's resolved type parameters, for helpers that take Pothos field builders. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
