import type { z } from 'zod';
import { newAccountInput, newApiKeyInput, newWidgetTokenInput, parseInput } from '../access/admin.js';
import { hasScope, insufficientScope } from '../access/principal.js';
import { AppError } from '../shared/errors.js';
import {
  AdminCreateAccountDocument,
  AdminCreateApiKeyDocument,
  AdminCreateWidgetTokenDocument,
  AdminListAccountsDocument,
  AdminListApiKeysDocument,
  AdminListWidgetTokensDocument,
  AdminRevokeApiKeyDocument,
  AdminRevokeWidgetTokenDocument,
  AdminRotateApiKeyDocument,
  type AdminAccountFragment,
  type AdminApiKeyFragment,
  type AdminIssuedApiKeyFragment,
  type AdminWidgetTokenFragment,
} from './__generated__/graphql.js';
import { listPage, pageArguments } from './lists.js';
import { runOperation } from './operation.js';
import type { RestRoute } from './routes.js';
import { bodyAsInput, restFieldName } from './shape.js';

/** Operator routes (scope `admin`) over the GraphQL admin operations. */

function accountJson(account: AdminAccountFragment) {
  return { id: account.id, name: account.name, created_at: account.createdAt };
}

function apiKeyJson(key: AdminApiKeyFragment) {
  return {
    id: key.id,
    account_id: key.accountId,
    name: key.name,
    plan: key.plan,
    scopes: key.scopes,
    allowed_origins: key.allowedOrigins,
    ip_allowlist: key.ipAllowlist,
    promo: key.promo,
    require_signature: key.requireSignature,
    signing_enabled: key.signingEnabled,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
  };
}

/** The key with its secrets, shown only in this answer. */
function issuedApiKeyJson(issued: AdminIssuedApiKeyFragment) {
  return { ...apiKeyJson(issued.apiKey), key: issued.key, signing_secret: issued.signingSecret };
}

function widgetTokenJson(token: AdminWidgetTokenFragment) {
  return {
    id: token.id,
    account_id: token.accountId,
    name: token.name,
    allowed_origins: token.allowedOrigins,
    rate_limit_per_minute: token.rateLimitPerMinute,
    created_at: token.createdAt,
    revoked_at: token.revokedAt,
  };
}

/**
 * The JSON body as the GraphQL input it becomes, parsed first by the domain's own schema so that
 * REST answers 422 with field errors (GraphQL would refuse ill-typed variables with 400).
 * Unknown fields are dropped.
 */
function validatedInput<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  try {
    return parseInput(schema, bodyAsInput(body));
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(error.code, error.message, {
      fieldErrors: error.fieldErrors.map((fieldError) => ({ ...fieldError, field: restFieldName(fieldError.field) })),
    });
  }
}

/** Refuses non-operators before looking at the body, so they learn nothing from validation errors. */
function adminRoute(route: RestRoute): RestRoute {
  return {
    ...route,
    async handle(request) {
      if (!hasScope(request.context.principal, 'admin')) {
        throw insufficientScope(['admin']);
      }
      return route.handle(request);
    },
  };
}

/** Paging and the optional account filter of the operator lists. */
function listVariables(query: URLSearchParams) {
  const accountId = query.get('account_id');
  return { ...pageArguments(query), ...(accountId ? { accountId } : {}) };
}

export const adminRoutes: RestRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/v1/admin/accounts',
    async handle({ body, context }) {
      const input = validatedInput(newAccountInput, body);
      const data = await runOperation(AdminCreateAccountDocument, { input }, context);
      return { status: 201, body: accountJson(data.createAccount) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/v1/admin/accounts',
    async handle({ query, url, context }) {
      const data = await runOperation(AdminListAccountsDocument, pageArguments(query), context);
      return listPage(url, data.accounts, accountJson);
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/v1/admin/api_keys',
    async handle({ body, context }) {
      const input = validatedInput(newApiKeyInput, body);
      const data = await runOperation(AdminCreateApiKeyDocument, { input }, context);
      return { status: 201, body: issuedApiKeyJson(data.createApiKey) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/v1/admin/api_keys',
    async handle({ query, url, context }) {
      const data = await runOperation(AdminListApiKeysDocument, listVariables(query), context);
      return listPage(url, data.apiKeys, apiKeyJson);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/v1/admin/api_keys/:id',
    async handle({ params, context }) {
      const data = await runOperation(AdminRevokeApiKeyDocument, { id: params['id']! }, context);
      return { status: 200, body: apiKeyJson(data.revokeApiKey) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/v1/admin/api_keys/:id/rotate',
    async handle({ params, context }) {
      const data = await runOperation(AdminRotateApiKeyDocument, { id: params['id']! }, context);
      return { status: 200, body: issuedApiKeyJson(data.rotateApiKey) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/v1/admin/widget_tokens',
    async handle({ body, context }) {
      const input = validatedInput(newWidgetTokenInput, body);
      const data = await runOperation(AdminCreateWidgetTokenDocument, { input }, context);
      return { status: 201, body: { ...widgetTokenJson(data.createWidgetToken), token: data.createWidgetToken.id } };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/v1/admin/widget_tokens',
    async handle({ query, url, context }) {
      const data = await runOperation(AdminListWidgetTokensDocument, listVariables(query), context);
      return listPage(url, data.widgetTokens, widgetTokenJson);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/v1/admin/widget_tokens/:id',
    async handle({ params, context }) {
      const data = await runOperation(AdminRevokeWidgetTokenDocument, { id: params['id']! }, context);
      return { status: 200, body: widgetTokenJson(data.revokeWidgetToken) };
    },
  }),
];
