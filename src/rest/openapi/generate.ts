import { isDeepStrictEqual } from 'node:util';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  print,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { scopes } from '../../access/principal.js';
import { bookingEventTypes, webhookEventTypes } from '../../events/kinds.js';
import { pageSizes } from '../../graphql/argument-checks.js';
import { isoDate, isoUtc } from '../../graphql/scalars.js';
import { statusForCode, type ErrorCode } from '../../shared/errors.js';
import { BookingFieldsFragmentDoc } from '../__generated__/graphql.js';
import { compileOperationRoute, type CompiledOperationRoute, type Parameter } from '../operation-route.js';
import { isOperationRoute, recordsPath, type DocumentRoute, type OperationRoute, type RestRoute } from '../route.js';
import { answerKeysOf, isConnectionType, isHiddenKey, type AnswerKey } from '../selection.js';
import { documentProse, sharedProse, type DocumentName, type RouteProse } from './prose.js';

/**
 * The OpenAPI 3.1 documents, derived from the REST table, the routes' operations and the schema:
 * paths and methods from the table; parameters from the operations' variables; request bodies from
 * the input types; answers from the selection sets, shaped as the REST adapter shapes them; error
 * responses from what each route can really answer. Only descriptions, summaries, tags, examples and
 * route-specific error codes are written by hand, in prose.ts.
 */

type JsonSchema = { [keyword: string]: unknown };

const toSnake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');
const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/** Which document a route belongs to, by its path. */
export const documentOf = (path: string): DocumentName => (path.startsWith('/api/v1/') ? 'api-v1' : 'v1');

/** String fields whose values come from a list the code keeps, though GraphQL types them String. */
const stringDomains: Record<string, readonly string[]> = {
  'BookingEvent.event': bookingEventTypes,
  'WebhookDelivery.event': webhookEventTypes,
  'WebhookEndpoint.events': webhookEventTypes,
  'CreateWebhookEndpointInput.events': webhookEventTypes,
  'UpdateWebhookEndpointInput.events': webhookEventTypes,
  'ApiKey.scopes': scopes,
  'CreateApiKeyInput.scopes': scopes,
};

/** JSON fields with a known shape: a booking event's data is the booking as BookingFields answers it (BookingEventPayload types it so). */
const jsonShapes: Record<string, DocumentNode> = {
  'BookingEvent.data': BookingFieldsFragmentDoc,
};

/** A fragment's shape is named after it, without the words that only say what it is for. */
const componentNameOf = (fragment: string) => fragment.replace(/(Fields|Projection)$/, '');

function compareText(a: string, b: string) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedObject<Value>(entries: Iterable<[string, Value]>): Record<string, Value> {
  return Object.fromEntries([...entries].sort(([a], [b]) => compareText(a, b)));
}

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

/** The object type each field belongs to, so a key's schema coordinate (`Booking.startTime`) can be named. */
function fieldOwners(schema: GraphQLSchema): Map<GraphQLField<unknown, unknown>, string> {
  const owners = new Map<GraphQLField<unknown, unknown>, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type)) for (const field of Object.values(type.getFields())) owners.set(field, type.name);
  }
  return owners;
}

/** The scopes a selection needs: those of its fields and of the types they return. */
function scopesOf(keys: readonly AnswerKey[], found = new Set<string>()): Set<string> {
  const add = (options: unknown) => {
    const authScopes = (options as { authScopes?: unknown } | undefined)?.authScopes as { scope?: string; authenticated?: boolean } | undefined;
    if (authScopes?.scope) found.add(authScopes.scope);
    else if (authScopes?.authenticated) found.add('');
  };
  for (const key of keys) {
    add(key.field.extensions?.['pothosOptions']);
    add(getNamedType(key.type).extensions?.['pothosOptions']);
    if (key.children) scopesOf(key.children, found);
  }
  return found;
}

/** Shapes with names, each kept once per document; a second, different shape under one name is a naming clash in the operations. */
class Components {
  readonly schemas = new Map<string, JsonSchema>();
  readonly parameters = new Map<string, JsonSchema>();
  readonly headers = new Map<string, JsonSchema>();
  readonly responses = new Map<string, JsonSchema>();

  schema(name: string, build: () => JsonSchema): JsonSchema {
    const schema = build();
    const known = this.schemas.get(name);
    if (known && !isDeepStrictEqual(known, schema)) throw new Error(`Two shapes would be named ${name} in one OpenAPI document; rename one of the fragments.`);
    this.schemas.set(name, schema);
    return ref('schemas', name);
  }

  add(section: 'parameters' | 'headers' | 'responses', name: string, build: () => JsonSchema): JsonSchema {
    if (!this[section].has(name)) this[section].set(name, build());
    return ref(section, name);
  }
}

function withNull(schema: JsonSchema): JsonSchema {
  if (typeof schema['type'] === 'string' && !('enum' in schema) && !('const' in schema)) return { ...schema, type: [schema['type'], 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** Builds one document's schemas against the live GraphQL schema. */
class Describer {
  readonly components = new Components();
  private readonly owners: Map<GraphQLField<unknown, unknown>, string>;

  constructor(private readonly schema: GraphQLSchema) {
    this.owners = fieldOwners(schema);
  }

  /** Description and examples for a schema coordinate, from the prose or else the schema. */
  private annotate(schema: JsonSchema, coordinate: string, fallback?: string | null): JsonSchema {
    const description = sharedProse.descriptions[coordinate] ?? fallback ?? undefined;
    const examples = sharedProse.examples[coordinate];
    return { ...schema, ...(description ? { description } : {}), ...(examples ? { examples } : {}) };
  }

  enumSchema(type: GraphQLEnumType): JsonSchema {
    return this.components.schema(type.name, () => this.annotate({ type: 'string', enum: type.getValues().map((value) => value.name.toLowerCase()) }, type.name, type.description));
  }

  scalarSchema(type: GraphQLNamedType, coordinate: string): JsonSchema {
    const domain = stringDomains[coordinate];
    if (domain) return { type: 'string', enum: [...domain] };
    switch (type.name) {
      case 'ID':
      case 'String':
        return { type: 'string' };
      case 'Int':
        return { type: 'integer' };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      case 'DateTime':
        return this.components.schema('DateTime', () => this.annotate({ type: 'string', format: 'date-time', pattern: isoUtc.source }, 'DateTime', type.description));
      case 'Date':
        return this.components.schema('Date', () => this.annotate({ type: 'string', format: 'date', pattern: isoDate.source }, 'Date', type.description));
      case 'JSON': {
        const shape = jsonShapes[coordinate];
        // Free-form JSON is the one kind of object left open.
        return shape ? this.fragmentSchema(shape) : {};
      }
      default:
        throw new Error(`The OpenAPI generator has no JSON Schema for the scalar ${type.name}.`);
    }
  }

  /** A fragment's shape on its own, as a named component. */
  private fragmentSchema(fragmentDocument: DocumentNode): JsonSchema {
    const fragment = fragmentDocument.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)!;
    const document = parse(`query Shape { node(id: "") { ...${fragment.name.value} } } ${print(fragmentDocument)}`);
    const [node] = answerKeysOf(this.schema, document);
    return this.objectOf(node!);
  }

  /** One key of an answer, as the REST adapter sends it. */
  keySchema(key: AnswerKey): JsonSchema {
    const owner = this.owners.get(key.field) ?? '';
    const coordinate = `${owner}.${key.field.name}`;
    const named = getNamedType(key.type);
    const leaf = (): JsonSchema => {
      if (isConnectionType(key.type)) return { type: 'array', items: this.objectOf(nodeOf(key)) };
      if (key.children) return this.objectOf(key);
      if (isEnumType(named)) return this.enumSchema(named);
      return this.scalarSchema(named, coordinate);
    };
    const schema = isNonNullType(key.type) ? this.notNull(key.type, leaf) : withNull(this.notNull(key.type, leaf));
    return this.annotate(schema, coordinate, key.field.description);
  }

  /** A value of `type` that is not null: lists as arrays (their items null where the type allows), `leaf` for the named type. */
  private notNull(type: GraphQLType, leaf: () => JsonSchema): JsonSchema {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (!isListType(inner)) return leaf();
    const items = this.notNull(inner.ofType, leaf);
    return { type: 'array', items: isNonNullType(inner.ofType) ? items : withNull(items) };
  }

  /** The object a key's selection set makes: its fragment's named shape, or the shape inline. */
  objectOf(key: AnswerKey, name = key.fragment && componentNameOf(key.fragment)): JsonSchema {
    const build = () => this.closedObject(key.children ?? []);
    return name ? this.components.schema(name, () => this.annotate(build(), name)) : build();
  }

  closedObject(keys: readonly AnswerKey[], extra: Record<string, JsonSchema> = {}): JsonSchema {
    const sent = keys.filter((key) => !isHiddenKey(key.key));
    const properties: Record<string, JsonSchema> = Object.fromEntries(sent.map((key) => [key.key, this.keySchema(key)]));
    Object.assign(properties, extra);
    const required = [...sent.filter((key) => !key.includedBy).map((key) => key.key), ...Object.keys(extra)];
    return { type: 'object', required, properties, additionalProperties: false };
  }

  /** A value of an input type as a JSON body takes it: snake_case keys, enums in lowercase, nothing unknown. */
  inputSchema(type: GraphQLInputType, coordinate: string): JsonSchema {
    const named = getNamedType(type);
    if (isEnumType(named)) return this.enumSchema(named);
    if (!isInputObjectType(named)) return this.scalarSchema(named, coordinate);
    const fields = Object.values(named.getFields());
    const properties = Object.fromEntries(
      fields.map((field) => {
        const fieldCoordinate = `${named.name}.${field.name}`;
        // An optional field is left out rather than sent as null.
        const schema = this.notNull(field.type, () => this.inputSchema(field.type, fieldCoordinate));
        const withDefault = field.defaultValue === undefined ? schema : { ...schema, default: this.restValue(field.type, field.defaultValue) };
        return [toSnake(field.name), this.annotate(withDefault, fieldCoordinate, field.description)];
      }),
    );
    const required = fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => toSnake(field.name));
    return this.annotate({ type: 'object', ...(required.length ? { required } : {}), properties, additionalProperties: false }, named.name, named.description);
  }

  /** A default value as REST writes it (enum values in lowercase). */
  restValue(type: GraphQLInputType, value: unknown): unknown {
    const named = getNamedType(type);
    if (isEnumType(named)) {
      const serialize = (item: unknown) => String(named.serialize(item)).toLowerCase();
      return Array.isArray(value) ? value.map(serialize) : serialize(value);
    }
    return value;
  }

  /** A query, path or header parameter's schema: the variable's type, never null. */
  parameterSchema(type: GraphQLInputType, coordinate: string): JsonSchema {
    return this.notNull(type, () => this.inputSchema(type, coordinate));
  }
}

function nodeOf(connection: AnswerKey): AnswerKey {
  const node = connection.children?.find((key) => key.key === 'edges')?.children?.find((key) => key.key === 'node');
  if (!node) throw new Error(`${connection.key} selects no edges { node { … } }.`);
  return node;
}

/** Everything the document says about one route, derived. */
class RouteDescriber {
  constructor(
    private readonly describer: Describer,
    private readonly schema: GraphQLSchema,
  ) {}

  private get components() {
    return this.describer.components;
  }

  operation(route: OperationRoute, prose: RouteProse): JsonSchema {
    const compiled = compileOperationRoute(this.schema, route);
    const needs = [...new Set([...scopesOf(answerKeysOf(this.schema, compiled.document)), ...(route.scope ? [route.scope] : [])])].sort(compareText);
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
      const schema = this.describer.parameterSchema(parameter.type, `${compiled.operationName}.${parameter.variable}`);
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
    return parameters;
  }

  private requestBody(compiled: CompiledOperationRoute, variable: string, prose: RouteProse): JsonSchema {
    const type = compiled.variableTypes.get(variable)!;
    const named = getNamedType(type);
    const schema = this.components.schema(named.name, () => this.describer.inputSchema(type, named.name));
    return { required: true, content: { 'application/json': { schema, ...(prose.requestExample ? { example: prose.requestExample } : {}) } } };
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
    }
    for (const name of rateLimitHeaders) headers[name] = this.header(name);
    const status = String(route.status ?? 200);
    const responses: Record<string, JsonSchema> = {
      [status]: { description: prose.response, headers, content: { 'application/json': { schema: this.answerSchema(route, compiled) } } },
    };
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

const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const genericProblemText: Record<string, string> = {
  '400': 'A query parameter is malformed, repeated or names something unknown (`invalid_parameter`, `errors` naming it), or the body is not JSON (`invalid_json`).',
  '404': '`not_found`: no such record in this account.',
  '422': '`validation_failed`: `errors` names each field, in the body’s snake_case (`unknown_field` for a key the body may not have).',
};

interface ResponseText {
  description: string;
  headers?: readonly string[];
}

const standardResponses = {
  NotModified: { description: 'The representation matches the validator sent (`If-None-Match`, `If-Modified-Since`); no body.', headers: ['ETag', 'Cache-Control'] },
  BadRequest: { description: genericProblemText['400']! },
  Unauthorized: {
    description:
      'No credential, or one that is malformed, unknown, revoked or expired (`unauthenticated`), or a bad request signature (`invalid_signature`, `signature_expired`, `replayed_request`).',
    headers: ['WWW-Authenticate'],
  },
  NotFound: { description: genericProblemText['404']! },
  PayloadTooLarge: { description: '`payload_too_large`: the body is over the size limit.' },
  UnsupportedMediaType: { description: '`unsupported_media_type`: the body is not `application/json`.' },
  UnprocessableContent: { description: genericProblemText['422']! },
  TooManyRequests: { description: '`rate_limited`: over the credential’s per-minute limit.', headers: ['Retry-After', ...rateLimitHeaders] },
  ServiceUnavailable: {
    description: '`service_unavailable`: the database is busy or unreachable; nothing was changed. Retry after `Retry-After` seconds.',
    headers: ['Retry-After'],
  },
} satisfies Record<string, ResponseText>;

type StandardResponse = keyof typeof standardResponses;
const standardNames = new Map<ResponseText, StandardResponse>(Object.entries(standardResponses).map(([name, text]) => [text, name as StandardResponse]));

function scopeSentence(needs: string[]): string {
  const named = needs.filter(Boolean).map((scope) => `\`${scope}\``);
  if (named.length) return `Needs the ${named.join(' and ')} scope${named.length > 1 ? 's' : ''} (\`admin\` has every scope).`;
  return needs.length ? 'Needs an API key, of any scope.' : '';
}

function forbiddenText(needs: string[]): string {
  const named = needs.filter(Boolean).map((scope) => `\`${scope}\``);
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
const ifModifiedSinceParameter = () => ({
  name: 'If-Modified-Since',
  in: 'header',
  description: 'An HTTP date; answers 304 when nothing in the answer is newer.',
  schema: { type: 'string' },
});

function problemSchemas(): Record<string, JsonSchema> {
  return {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        code: { type: 'string', enum: Object.keys(statusForCode).sort(compareText), description: 'Stable snake_case error code.' },
        request_id: { type: 'string', description: 'The `X-Request-Id` of the request.' },
        errors: { type: 'array', items: ref('schemas', 'FieldError') },
      },
      additionalProperties: false,
    },
    FieldError: {
      type: 'object',
      required: ['field', 'code', 'message'],
      properties: {
        field: { type: 'string', description: 'The query parameter, or the dotted snake_case path in the body (`customer.email`).' },
        code: { type: 'string', examples: ['required', 'invalid', 'unknown_field'] },
        message: { type: 'string' },
      },
      additionalProperties: false,
    },
  };
}

/** Every `$ref` of the document names a component it holds. */
function checkReferences(document: JsonSchema) {
  const seen: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, entry] of Object.entries(value)) {
        if (key === '$ref' && typeof entry === 'string') seen.push(entry);
        else walk(entry);
      }
    }
  };
  walk(document);
  for (const pointer of seen) {
    const target = pointer
      .slice(2)
      .split('/')
      .reduce<unknown>((node, segment) => (node as Record<string, unknown> | undefined)?.[segment], document);
    if (target === undefined) throw new Error(`The OpenAPI document refers to ${pointer}, which it does not hold.`);
  }
}

const methodOrder = ['get', 'post', 'patch', 'delete'];

/** One OpenAPI document: the routes under its prefix, with its prose. */
export function openApiDocument(schema: GraphQLSchema, routes: readonly RestRoute[], name: DocumentName): JsonSchema {
  const prose = documentProse[name];
  const describer = new Describer(schema);
  const routeDescriber = new RouteDescriber(describer, schema);
  const paths = new Map<string, Record<string, JsonSchema>>();
  const described = new Set<string>();
  for (const route of routes.filter((candidate) => documentOf(candidate.path) === name)) {
    const path = openApiPath(route.path);
    const key = `${route.method} ${path}`;
    const routeProse = prose.routes[key];
    if (!routeProse) throw new Error(`prose.ts has no text for ${key}.`);
    described.add(key);
    const operation = isOperationRoute(route) ? routeDescriber.operation(route, routeProse) : routeDescriber.document(route, routeProse);
    paths.set(path, { ...paths.get(path), [route.method.toLowerCase()]: operation });
  }
  const stale = Object.keys(prose.routes).filter((key) => !described.has(key));
  if (stale.length) throw new Error(`prose.ts describes routes the table does not have: ${stale.join(', ')}.`);

  const { components } = describer;
  for (const [schemaName, extra] of Object.entries(prose.schemas ?? {})) components.schema(schemaName, () => extra);
  const document: JsonSchema = {
    openapi: '3.1.0',
    info: prose.info,
    servers: sharedProse.servers,
    security: [{ bearerAuth: [] }],
    tags: prose.tags,
    paths: sortedObject([...paths].map(([path, item]) => [path, Object.fromEntries(Object.entries(item).sort(([a], [b]) => methodOrder.indexOf(a) - methodOrder.indexOf(b)))])),
    ...(prose.webhooks ? { webhooks: prose.webhooks } : {}),
    components: {
      securitySchemes: { bearerAuth: sharedProse.bearerAuth },
      schemas: sortedObject([...components.schemas, ...Object.entries(problemSchemas())]),
      parameters: sortedObject([...components.parameters, ...Object.entries(prose.parameters ?? {})]),
      headers: sortedObject(components.headers),
      responses: sortedObject(components.responses),
    },
  };
  checkReferences(document);
  return document;
}

export const documentNames: readonly DocumentName[] = ['v1', 'api-v1'];

/** Both documents, by name, over the served routes. */
export function openApiDocuments(schema: GraphQLSchema, routes: readonly RestRoute[]): Record<DocumentName, JsonSchema> {
  return { v1: openApiDocument(schema, routes, 'v1'), 'api-v1': openApiDocument(schema, routes, 'api-v1') };
}
