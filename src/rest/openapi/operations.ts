import { getNamedType, isNonNullType, Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLArgument, type GraphQLSchema } from 'graphql';
import { pageSizes } from '../../graphql/argument-checks.js';
import { statusForCode, type ErrorCode } from '../../shared/errors.js';
import { compileOperationRoute, type CompiledOperationRoute, type Parameter } from '../operation-route.js';
import { answersWithValidator, recordsPath, type DocumentRoute, type OperationRoute, type RestRoute } from '../route.js';
import { answerKeysOf, type AnswerKey } from '../selection.js';
import { compareText, ref, type JsonSchema } from './components.js';
import { sharedProse, type RouteProse } from './prose.js';
import { rateLimitHeaders, standardNames, standardResponses, type ResponseText, type StandardResponse } from './responses.js';
import { componentNameOf, nodeOf, type Describer } from './schemas.js';
import { argumentRange, jsonSchemaOfRange, type NumberRange } from '../../graphql/argument-range.js';

/** One route as an OpenAPI operation: its parameters, request body and responses, derived from its operation. */

export const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

/** The argument each variable of an operation fills first, for its description and default. */
function argumentsOfVariables(schema: GraphQLSchema, document: DocumentNode): Map<string, GraphQLArgument> {
  const found = new Map<string, GraphQLArgument>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        if (argument && node.value.kind === Kind.VARIABLE && !found.has(node.value.name.value)) found.set(node.value.name.value, argument);
      },
    }),
  );
  return found;
}

/** The alternative of a need that any widget token meets (`widgetToken`). */
const anyWidgetToken = 'widget token';

/**
 * The scopes a selection needs: those of its fields and of the types they return. Each need is its
 * alternatives (any one admits) joined by `|`; '' stands for an API key of any scope, anyWidgetToken for any widget token.
 */
function scopesOf(keys: readonly AnswerKey[], found = new Set<string>()): Set<string> {
  const add = (options: unknown) => {
    const authScopes = (options as { authScopes?: unknown } | undefined)?.authScopes as
      { scope?: string; anyScope?: readonly string[]; authenticated?: boolean; widgetToken?: boolean } | undefined;
    const alternatives = [
      ...(authScopes?.authenticated ? [''] : []),
      ...(authScopes?.scope ? [authScopes.scope] : []),
      ...(authScopes?.anyScope ?? []),
      ...(authScopes?.widgetToken ? [anyWidgetToken] : []),
    ];
    if (alternatives.length) found.add(alternatives.join('|'));
  };
  for (const key of keys) {
    add(key.field.extensions?.['pothosOptions']);
    add(getNamedType(key.type).extensions?.['pothosOptions']);
    if (key.children) scopesOf(key.children, found);
  }
  return found;
}

/** Needs all of which must hold, less those another implies: `admin` implies every need, and a need every one with more alternatives. */
function withoutImplied(needs: string[]): string[] {
  const alternatives = (need: string) => need.split('|');
  const implies = (other: string, need: string) => other === 'admin' || alternatives(other).every((scope) => alternatives(need).includes(scope));
  return needs.filter((need) => !needs.some((other) => other !== need && implies(other, need)));
}

/** Everything the document says about one route, derived. */
export class RouteDescriber {
  constructor(
    private readonly describer: Describer,
    private readonly schema: GraphQLSchema,
    /** Every route of the table: what a route answers may depend on the others at its path. */
    private readonly routes: readonly RestRoute[],
  ) {}

  private get components() {
    return this.describer.components;
  }

  operation(route: OperationRoute, prose: RouteProse): JsonSchema {
    const compiled = compileOperationRoute(this.schema, route);
    const documents = [compiled.document, ...(compiled.eventStream ? [compiled.eventStream.document] : [])];
    const answerScopes = documents.flatMap((document) => [...scopesOf(answerKeysOf(this.schema, document))]);
    const needs = withoutImplied([...new Set(answerScopes)]).sort(compareText);
    const parameters = this.parameters(route, compiled, prose);
    const requestBody = route.body ? this.requestBody(compiled, route.body, prose) : undefined;
    return {
      tags: prose.tags,
      summary: prose.summary,
      description: [prose.description, scopeSentence(needs), `Runs the GraphQL operation \`${compiled.operationName}\`.`].filter(Boolean).join('\n\n'),
      operationId: prose.operationId,
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses: this.responses(route, compiled, prose, needs),
    };
  }

  private parameters(route: OperationRoute, compiled: CompiledOperationRoute, prose: RouteProse): JsonSchema[] {
    const argumentOf = argumentsOfVariables(this.schema, compiled.document);
    const describe = (parameter: Parameter, location: 'path' | 'query') => {
      const argument = argumentOf.get(parameter.variable);
      const range = argument?.extensions[argumentRange] as NumberRange | undefined;
      const schema = { ...this.describer.parameterSchema(parameter.type, `${compiled.operationName}.${parameter.variable}`), ...(range ? jsonSchemaOfRange(range) : {}) };
      const withDefault = argument?.defaultValue === undefined ? schema : { ...schema, default: this.describer.restValue(parameter.type, argument.defaultValue) };
      const description = prose.parameters?.[parameter.name] ?? argument?.description ?? undefined;
      return {
        name: parameter.name,
        in: location,
        ...(description ? { description } : {}),
        ...(location === 'path' || isNonNullType(parameter.type) ? { required: true } : {}),
        schema: withDefault,
      };
    };
    const list = (name: string, values: readonly string[], description: string) => ({
      name,
      in: 'query',
      description: prose.parameters?.[name] ?? description,
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: [...values] } },
    });
    const { projection } = compiled;
    const parameters: JsonSchema[] = [
      ...compiled.pathParameters.map((parameter) => describe(parameter, 'path')),
      ...compiled.queryParameters.map((parameter) => describe(parameter, 'query')),
    ];
    if (compiled.paged) parameters.push(this.components.add('parameters', 'Limit', limitParameter), this.components.add('parameters', 'Cursor', cursorParameter));
    if (compiled.sortFields) {
      const values = compiled.sortFields.flatMap((field) => [field, `-${field}`]);
      parameters.push(list('sort', values, 'Comma-separated fields to order by, `-` for descending; the id breaks ties. Any other name is 400.'));
    }
    if (projection.fields.size) {
      parameters.push(list('fields', [...projection.always, ...projection.fields.keys()], 'Comma-separated keys to send; `id` is always sent. Any other name is 400.'));
    }
    if (projection.includes.size) {
      parameters.push(list('include', [...projection.includes.keys()], 'Comma-separated related records to embed; without it they are left out. Any other name is 400.'));
    }
    for (const [header, variable] of Object.entries(route.headers ?? {})) {
      const type = compiled.variableTypes.get(variable)!;
      const description = prose.parameters?.[headerName(header)];
      parameters.push({
        name: headerName(header),
        in: 'header',
        ...(description ? { description } : {}),
        ...(isNonNullType(type) ? { required: true } : {}),
        schema: this.describer.parameterSchema(type, `${compiled.operationName}.${variable}`),
      });
    }
    if (route.method === 'GET') parameters.push(this.components.add('parameters', 'IfNoneMatch', ifNoneMatchParameter));
    if (route.method === 'GET' && route.lastModified) parameters.push(this.components.add('parameters', 'IfModifiedSince', ifModifiedSinceParameter));
    if (compiled.eventStream) parameters.push(this.components.add('parameters', 'LastEventId', lastEventIdParameter));
    return parameters;
  }

  private requestBody(compiled: CompiledOperationRoute, variable: string, prose: RouteProse): JsonSchema {
    const type = compiled.variableTypes.get(variable)!;
    const named = getNamedType(type);
    const schema = this.components.schema(named.name, () => this.describer.inputSchema(type, named.name));
    return { required: isNonNullType(type), content: { 'application/json': { schema, ...(prose.requestExample ? { example: prose.requestExample } : {}) } } };
  }

  /** The answer's body as the REST adapter shapes it: list pages, spreads and constants applied. */
  private answerSchema(route: OperationRoute, compiled: CompiledOperationRoute): JsonSchema {
    const answer = compiled.answerKey;
    if (compiled.isList) {
      const node = nodeOf(answer);
      const item = this.describer.objectOf(node, node.fragment ? componentNameOf(node.fragment) : getNamedType(node.type).name);
      return {
        type: 'object',
        required: ['data', 'has_more', 'next_cursor'],
        properties: {
          data: { type: 'array', items: item },
          has_more: { type: 'boolean', description: 'Another page follows.' },
          next_cursor: { type: ['string', 'null'], description: 'The `cursor` of the next page; null on the last.' },
        },
        additionalProperties: false,
      };
    }
    if (!route.spread && !route.constant) return this.describer.objectOf(answer);
    const keys = compiled.itemKeys;
    const inner = route.spread ? keys.find((key) => key.key === route.spread) : undefined;
    if (route.spread && !inner?.children) throw new Error(`${route.method} ${route.path}: spread ${route.spread} is no object of the answer.`);
    const constants = Object.fromEntries(
      Object.entries(route.constant ?? {}).map(([key, value]) => [key, { type: typeof value === 'number' ? 'number' : typeof value, const: value }]),
    );
    // The router sends the spread object's keys first, then the answer's others, then the constants.
    const build = () => this.describer.closedObject([...(inner?.children ?? []), ...keys.filter((key) => key !== inner)], constants);
    if (!route.spread) return build();
    const name = answer.fragment ? componentNameOf(answer.fragment) : getNamedType(answer.type).name;
    return this.components.schema(name, build);
  }

  private responses(route: OperationRoute, compiled: CompiledOperationRoute, prose: RouteProse, needs: string[]): JsonSchema {
    const isGet = route.method === 'GET';
    const headers: Record<string, JsonSchema> = {};
    if (route.location) headers['Location'] = { description: `The new record's URL, \`${openApiPath(recordsPath(route, route.path))}/{id}\`.`, schema: { type: 'string' } };
    for (const flag of Object.keys(route.flags ?? {}).sort(compareText)) {
      headers[headerName(flag)] = { description: sharedProse.headers[headerName(flag)] ?? `\`true\` when it applies.`, schema: { type: 'string', const: 'true' } };
    }
    if (isGet) {
      headers['ETag'] = this.header('ETag');
      headers['Cache-Control'] = this.header('Cache-Control');
      if (route.lastModified) headers['Last-Modified'] = this.header('Last-Modified');
      if (compiled.isList) headers['Link'] = this.header('Link');
    } else if (answersWithValidator(route, this.routes)) headers['ETag'] = this.header('ETag');
    for (const name of rateLimitHeaders) headers[name] = this.header(name);
    const status = String(route.status ?? 200);
    const content: Record<string, JsonSchema> = { 'application/json': { schema: this.answerSchema(route, compiled) } };
    if (compiled.eventStream) content['text/event-stream'] = this.eventStreamContent(compiled.eventStream);
    const responses: Record<string, JsonSchema> = { [status]: { description: prose.response, headers, content } };
    if (isGet) responses['304'] = this.response('NotModified');
    const hasBody = Boolean(route.body);
    const hasParameters =
      compiled.queryParameters.length > 0 || compiled.paged || Boolean(compiled.sortFields) || compiled.projection.fields.size > 0 || compiled.projection.includes.size > 0;
    const derived: Record<string, ResponseText> = {};
    if (hasParameters || route.method === 'POST' || route.method === 'PATCH') derived['400'] = standardResponses.BadRequest;
    derived['401'] = standardResponses.Unauthorized;
    derived['403'] = { description: forbiddenText(needs), headers: ['WWW-Authenticate'] };
    if (compiled.pathParameters.length) derived['404'] = standardResponses.NotFound;
    if (hasBody) Object.assign(derived, { '413': standardResponses.PayloadTooLarge, '415': standardResponses.UnsupportedMediaType, '422': standardResponses.UnprocessableContent });
    derived['429'] = standardResponses.TooManyRequests;
    derived['503'] = standardResponses.ServiceUnavailable;
    // Route-specific codes join the status they are answered with.
    const extra = new Map<string, string[]>();
    for (const [code, text] of Object.entries(prose.errors ?? {}) as [ErrorCode, string][]) {
      const codeStatus = String(statusForCode[code]);
      extra.set(codeStatus, [...(extra.get(codeStatus) ?? []), `\`${code}\`: ${text}`]);
    }
    const statuses = [...new Set([...Object.keys(derived), ...extra.keys()])].sort(compareText);
    for (const codeStatus of statuses) {
      const standard = derived[codeStatus];
      const lines = extra.get(codeStatus) ?? [];
      const name = standard && standardNames.get(standard);
      if (name && !lines.length) responses[codeStatus] = this.response(name);
      else responses[codeStatus] = this.problem({ description: [standard?.description, ...lines].filter(Boolean).join(' '), headers: standard?.headers });
    }
    return responses;
  }

  /**
   * The event stream a route answers when the Accept header prefers it: server-sent events whose
   * `data:` is each one JSON object of the subscription's answer, described as OpenAPI 3.2's
   * `itemSchema` would (3.1 has no place for it but an extension).
   */
  private eventStreamContent(stream: CompiledOperationRoute): JsonSchema {
    return {
      schema: {
        type: 'string',
        description: `Sent when the Accept header prefers \`text/event-stream\` to JSON: server-sent events, each \`data:\` one JSON object as \`x-itemSchema\` describes; comments (\`:\`) keep it alive; \`event: error\` with a problem document, or \`event: complete\`, ends it. Runs the GraphQL subscription \`${stream.operationName}\`.`,
      },
      'x-itemSchema': this.describer.objectOf(stream.answerKey),
    };
  }

  private header(name: string): JsonSchema {
    return this.components.add('headers', name, () => ({
      description: sharedProse.headers[name] ?? name,
      schema: name.startsWith('X-RateLimit') ? { type: 'integer' } : { type: 'string' },
    }));
  }

  private response(name: StandardResponse): JsonSchema {
    return this.components.add('responses', name, () => (name === 'NotModified' ? this.withHeaders(standardResponses[name]) : this.problem(standardResponses[name])));
  }

  /** A problem+json response with its headers. */
  private problem(response: { description: string; headers?: readonly string[] | undefined }): JsonSchema {
    return { ...this.withHeaders(response), content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } } };
  }

  private withHeaders({ description, headers }: { description: string; headers?: readonly string[] | undefined }): JsonSchema {
    return { description, ...(headers?.length ? { headers: Object.fromEntries(headers.map((header) => [header, this.header(header)])) } : {}) };
  }

  document(route: DocumentRoute, prose: RouteProse): JsonSchema {
    return {
      tags: prose.tags,
      summary: prose.summary,
      ...(prose.description ? { description: prose.description } : {}),
      operationId: prose.operationId,
      security: [],
      parameters: [this.components.add('parameters', 'IfNoneMatch', ifNoneMatchParameter)],
      responses: {
        '200': {
          description: prose.response,
          headers: { ETag: this.header('ETag'), 'Cache-Control': this.header('Cache-Control') },
          // The document itself is free-form JSON.
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '304': this.response('NotModified'),
        '401': this.problem({ description: 'An `Authorization` header was sent and is not a valid credential; send none, or a valid one.', headers: ['WWW-Authenticate'] }),
        '429': this.problem({ description: 'A credential was sent and is over its per-minute limit, or the address sent too many invalid ones.', headers: ['Retry-After'] }),
      },
    };
  }
}

/** "the `bookings:read` scope", or "an API key or the `bookings:book` scope" for a need with alternatives. */
const needText = (need: string) =>
  need
    .split('|')
    .map((scope) => (scope === anyWidgetToken ? 'a widget token' : scope ? `the \`${scope}\` scope` : 'an API key'))
    .join(' or ');

function scopeSentence(needs: string[]): string {
  const named = needs.filter(Boolean);
  if (named.some((need) => need.includes('|'))) return `Needs ${named.map(needText).join(', and ')} (\`admin\` has every scope).`;
  if (named.length) return `Needs the ${named.map((scope) => `\`${scope}\``).join(' and ')} scope${named.length > 1 ? 's' : ''} (\`admin\` has every scope).`;
  return needs.length ? 'Needs an API key, of any scope.' : '';
}

function forbiddenText(needs: string[]): string {
  const named = [...new Set(needs.flatMap((need) => need.split('|')).filter((scope) => scope && scope !== anyWidgetToken))].map((scope) => `\`${scope}\``);
  const scope = named.length ? `the credential lacks ${named.join(' or ')}` : 'a widget token asked for more than the directory';
  return `\`insufficient_scope\`: ${scope}; or the client address or page origin is not allowed for it (\`ip_not_allowed\`, \`origin_not_allowed\`).`;
}

const limitParameter = () => ({
  name: 'limit',
  in: 'query',
  description: 'Page size.',
  schema: { type: 'integer', minimum: 1, maximum: pageSizes.max, default: pageSizes.default },
});
const cursorParameter = () => ({ name: 'cursor', in: 'query', description: 'The `next_cursor` of the previous page.', schema: { type: 'string' } });
const ifNoneMatchParameter = () => ({ name: 'If-None-Match', in: 'header', description: 'ETags received earlier; a match answers 304.', schema: { type: 'string' } });
const lastEventIdParameter = () => ({
  name: 'Last-Event-ID',
  in: 'header',
  description: 'With `Accept: text/event-stream`: the last `id:` the stream sent, to resume from (EventSource sends it when it reconnects).',
  schema: { type: 'string' },
});
const ifModifiedSinceParameter = () => ({
  name: 'If-Modified-Since',
  in: 'header',
  description: 'An HTTP date; answers 304 when nothing in the answer is newer.',
  schema: { type: 'string' },
});
