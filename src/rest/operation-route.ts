import { getNamedType, isEnumType, isInputObjectType, typeFromAST, type DocumentNode, type GraphQLEnumType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { AuthScopes } from '../access/principal.js';
import { pageSizes } from '../graphql/argument-checks.js';
import { markRestOperationDocument } from '../graphql/rest-operation-documents.js';
import { dataVersionsOf, type GraphQLDataVersionDependency } from '../response-cache/graphql-data-versions.js';
import { closestName } from '../shared/closest-name.js';
import { AppError, echoed, invalidParameter, type FieldError } from '../shared/errors.js';
import { decimalText } from '../shared/decimal.js';
import { camelCaseOf, snakeCaseOf, snakeCasePathOf } from '../shared/naming.js';
import { answerKeyAt, answerKeysOf, isConnectionType, isHiddenKey, nodeKeysOf, operationOf, type AnswerKey } from './selection.js';
import type { OperationRoute } from './route.js';

/** Turns a value of the answer into its REST form; undefined where the value stays as it is. */
type Shaper = (value: unknown) => unknown;

function overNullAndLists(shape: (value: unknown) => unknown): Shaper {
  const each: Shaper = (value) => (value === null || value === undefined ? value : Array.isArray(value) ? value.map(each) : shape(value));
  return each;
}

/**
 * The REST form of an answer under `keys`: enum values in lowercase, nested connections as arrays
 * of their nodes, `_…` keys left out. Subtrees that need none of it are not walked. Objects are
 * changed in place (the result is the request's own) unless keys are to be left out: copying them
 * then costs less than deleting, which would leave V8 a slow object to serialise.
 */
export function shaperFor(keys: readonly AnswerKey[]): Shaper | undefined {
  const visible = keys.filter((key) => !isHiddenKey(key.key)).map((key) => ({ name: key.key, shape: keyShaper(key) }));
  const reshaped = visible.filter((entry): entry is { name: string; shape: Shaper } => entry.shape !== undefined);
  if (visible.length === keys.length) {
    if (reshaped.length === 0) return undefined;
    return overNullAndLists((value) => {
      const object = value as Record<string, unknown>;
      for (const { name, shape } of reshaped) if (name in object) object[name] = shape(object[name]);
      return object;
    });
  }
  return overNullAndLists((value) => {
    const object = value as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    for (const { name, shape } of visible) if (name in object) copy[name] = shape ? shape(object[name]) : object[name];
    return copy;
  });
}

function keyShaper(key: AnswerKey): Shaper | undefined {
  const named = getNamedType(key.type);
  if (isEnumType(named)) {
    const lowercase = new Map(named.getValues().map((value) => [value.name, value.name.toLowerCase()]));
    return overNullAndLists((value) => lowercase.get(value as string) ?? String(value).toLowerCase());
  }
  if (!key.children) return undefined;
  if (isConnectionType(key.type)) {
    const node = shaperFor(nodeKeysOf(key));
    return overNullAndLists((value) => (value as { edges: { node: unknown }[] }).edges.map((edge) => (node ? node(edge.node) : edge.node)));
  }
  return shaperFor(key.children);
}

/**
 * Query parameters every route ignores: `_`, the cache-buster that jQuery and other clients append
 * (`?_=1700000000000`) to get past caches.
 */
const ignoredQueryNames = new Set(['_']);

/** How one query or path parameter becomes a variable. */
export interface Parameter {
  name: string;
  variable: string;
  type: GraphQLInputType;
}

/** A value as text (from a path or query string) in the form the variable's type takes. */
function typedValue(parameter: Parameter, text: string): unknown {
  const named = getNamedType(parameter.type);
  if (isEnumType(named)) {
    const value = named.getValues().find((candidate) => candidate.name.toLowerCase() === text.toLowerCase());
    if (!value) {
      const allowed = named.getValues().map((candidate) => candidate.name.toLowerCase());
      throw invalidParameter(parameter.name, `${parameter.name} must be one of: ${allowed.join(', ')}.`);
    }
    return value.name;
  }
  switch (named.name) {
    case 'Int':
      // Digits make a number, however many: one too large for an Int is refused as that, not as text.
      return /^-?\d{1,300}$/.test(text) ? Number(text) : text;
    case 'Float':
      return decimalText.test(text) && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'Boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}

/** `sort=-price_min,title` over the values of the `$orderBy` input's `field` enum. */
interface Sorting {
  fields: GraphQLEnumType;
}

function sortingOf(type: GraphQLInputType | undefined): Sorting | undefined {
  const order = type && getNamedType(type);
  if (!order || !isInputObjectType(order)) return undefined;
  const field = order.getFields()['field'];
  const fields = field && getNamedType(field.type);
  return fields && isEnumType(fields) ? { fields } : undefined;
}

/** `fields=` and `include=`: the keys a `$with…` or `$include…` variable guards. */
export interface Projection {
  fields: Map<string, string>;
  includes: Map<string, string>;
  /** Keys always sent, which `fields=` may name too. */
  always: string[];
}

function projectionOf(itemKeys: readonly AnswerKey[]): Projection {
  const fields = new Map<string, string>();
  const includes = new Map<string, string>();
  for (const key of itemKeys) {
    if (key.includedBy?.startsWith('with')) fields.set(key.key, key.includedBy);
    if (key.includedBy?.startsWith('include')) includes.set(key.key, key.includedBy);
  }
  const always = itemKeys.filter((key) => !key.includedBy && !isHiddenKey(key.key)).map((key) => key.key);
  return { fields, includes, always };
}

/** A comma-separated list whose every item must be one of `allowed`; 400 naming the parameter otherwise. */
function listParameter(parameter: string, raw: string, allowed: readonly string[]): string[] {
  const items = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = items.filter((item) => !allowed.includes(item));
  if (unknown.length) throw invalidParameter(parameter, `${parameter} has unknown names: ${echoed(unknown.join(', '))}. Allowed: ${allowed.join(', ')}.`);
  return items;
}

export interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
}

/** An operation route, analysed once against the schema: what the handler does for every request. */
export interface CompiledOperationRoute {
  route: OperationRoute;
  document: DocumentNode;
  operationName: string;
  answerPath: string[];
  /** The answer is a connection, sent as a list page. */
  isList: boolean;
  shape: Shaper | undefined;
  /** The data versions its GET responses are cached under (response cache), when they can be cached. */
  dataVersions: GraphQLDataVersionDependency[] | undefined;
  /** What the fields on the way to the answer ask of the caller (each met, or the request is refused before its input is read). */
  accessNeeds: AuthScopes[];
  variablesOf(request: RouteRequest): Record<string, unknown>;
  /** A field error's field, as REST names it (query parameter, or snake_case path in the body). */
  restFieldOf(field: string): string;
  /**
   * A message in REST names: the fields it names (`fields`, and any camelCase variable or input field
   * of the operation, such as the other end of a range) as restFieldOf names them.
   */
  restTextOf(text: string, fields: readonly string[]): string;
  // What the route reads and answers, as plain data for the OpenAPI document; the handler reads none of it.
  pathParameters: readonly Parameter[];
  queryParameters: readonly Parameter[];
  /** `limit` and `cursor`: the operation takes `$first`. */
  paged: boolean;
  /** The `sort=` field names, when the operation takes `$orderBy`. */
  sortFields: readonly string[] | undefined;
  projection: Projection;
  /** The answer's key (the connection, for a list) and the keys of the answer object or of each list item. */
  answerKey: AnswerKey;
  itemKeys: readonly AnswerKey[];
  variableTypes: ReadonlyMap<string, GraphQLInputType>;
  /** The route's event stream (its subscription), compiled as a route of its own on the same path. */
  eventStream: CompiledOperationRoute | undefined;
}

const pageVariables = { first: 'limit', after: 'cursor', orderBy: 'sort' } as const;

export function compileOperationRoute(schema: GraphQLSchema, route: OperationRoute): CompiledOperationRoute {
  const operation = operationOf(route.operation);
  markRestOperationDocument(route.operation);
  const variableTypes = new Map(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, typeFromAST(schema, definition.type as never) as GraphQLInputType]),
  );
  const answerPath = route.answer.split('.');
  const answerKeys = answerKeysOf(schema, route.operation);
  const answer = answerKeyAt(answerKeys, answerPath);
  const accessNeeds = answerPath.flatMap((_, depth) => {
    const needs = (answerKeyAt(answerKeys, answerPath.slice(0, depth + 1)).field.extensions['pothosOptions'] as { authScopes?: unknown } | undefined)?.authScopes;
    // A need the schema computes per request is left to the operation.
    return needs && typeof needs === 'object' ? [needs as AuthScopes] : [];
  });
  const isList = isConnectionType(answer.type);
  const itemKeys = isList ? nodeKeysOf(answer) : (answer.children ?? []);
  const projection = projectionOf(itemKeys);
  const sorting = sortingOf(variableTypes.get('orderBy'));
  const parameterNameOf = (variable: string) => route.parameters?.[variable] ?? snakeCaseOf(variable);

  const pathParameterNames = [...route.path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
  const pathParameters: Parameter[] = pathParameterNames.map((name) => {
    const variable = Object.entries(route.parameters ?? {}).find(([, parameter]) => parameter === name)?.[0] ?? camelCaseOf(name);
    const type = variableTypes.get(variable);
    if (!type) throw new Error(`${route.method} ${route.path}: :${name} fills no variable of ${operation.name?.value}.`);
    return { name, variable, type };
  });
  const claimed = new Set<string>([
    ...pathParameters.map((parameter) => parameter.variable),
    ...Object.keys(pageVariables),
    ...projection.fields.values(),
    ...projection.includes.values(),
    ...(route.body ? [route.body] : []),
    ...Object.values(route.headers ?? {}),
  ]);
  const queryParameters: Parameter[] = [...variableTypes]
    .filter(([variable]) => !claimed.has(variable))
    .map(([variable, type]) => ({ name: parameterNameOf(variable), variable, type }));
  const restNames = new Map<string, string>([
    ...Object.entries(pageVariables),
    ...[...pathParameters, ...queryParameters].map((parameter) => [parameter.variable, parameter.name] as const),
  ]);

  function restFieldOf(field: string): string {
    const [head = '', ...rest] = field.split('.');
    const parameter = restNames.get(head);
    return parameter ? [parameter, ...rest.map(snakeCaseOf)].join('.') : snakeCasePathOf(field);
  }
  const graphqlNames = namesOf(variableTypes);

  const knownQueryNames = [
    ...queryParameters.map((parameter) => parameter.name),
    ...(variableTypes.has('first') ? ['limit', 'cursor'] : []),
    ...(sorting ? ['sort'] : []),
    ...(projection.fields.size ? ['fields'] : []),
    ...(projection.includes.size ? ['include'] : []),
  ];

  /** Every query parameter the route does not take, named at once: a typo must not pass silently. */
  function refuseUnknownParameters(query: URLSearchParams) {
    const unknown = [...new Set(query.keys())].filter((name) => !knownQueryNames.includes(name) && !ignoredQueryNames.has(name));
    if (unknown.length === 0) return;
    const takes = knownQueryNames.length ? `It takes ${knownQueryNames.join(', ')}.` : 'It takes no query parameters.';
    const fieldErrors = unknown.map((name) => {
      const near = closestName(name, knownQueryNames);
      return { field: echoed(name), code: 'unknown_parameter', message: near ? `Unknown parameter; did you mean ${near}?` : `Unknown parameter. ${takes}` };
    });
    throw new AppError('invalid_parameter', `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map(echoed).join(', ')}. ${takes}`, { fieldErrors });
  }

  const single = (query: URLSearchParams, name: string): string | undefined => {
    const values = query.getAll(name);
    if (values.length > 1) throw invalidParameter(name, `Send ${name} once.`, 'repeated');
    return values[0] === '' ? undefined : values[0];
  };

  function projectionVariables(query: URLSearchParams, variables: Record<string, unknown>) {
    if (projection.fields.size === 0 && projection.includes.size === 0) return;
    const fieldsText = single(query, 'fields');
    const requested = fieldsText === undefined ? undefined : listParameter('fields', fieldsText, [...projection.always, ...projection.fields.keys()]);
    for (const [key, variable] of projection.fields) variables[variable] = !requested || requested.includes(key);
    const includeText = single(query, 'include');
    const included = includeText === undefined ? [] : listParameter('include', includeText, [...projection.includes.keys()]);
    for (const [key, variable] of projection.includes) variables[variable] = included.includes(key);
  }

  function sortVariable(query: URLSearchParams, variables: Record<string, unknown>) {
    const raw = sorting && single(query, 'sort');
    if (!sorting || raw === undefined) return;
    const allowed = sorting.fields.getValues().map((value) => value.name.toLowerCase());
    variables['orderBy'] = raw
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean)
      .map((item) => {
        const field = item.replace(/^-/, '');
        if (!allowed.includes(field)) throw invalidParameter('sort', `sort cannot use "${echoed(field)}". Allowed: ${allowed.join(', ')}.`);
        return { field: field.toUpperCase(), direction: item.startsWith('-') ? 'DESC' : 'ASC' };
      });
  }

  return {
    route,
    document: route.operation,
    operationName: operation.name!.value,
    answerPath,
    isList,
    shape: shaperFor(itemKeys),
    dataVersions: route.method === 'GET' ? dataVersionsOf(schema, route.operation, operation.name?.value) : undefined,
    accessNeeds,
    variablesOf({ params, query, headers, body }) {
      refuseUnknownParameters(query);
      const variables: Record<string, unknown> = {};
      for (const parameter of pathParameters) variables[parameter.variable] = typedValue(parameter, params[parameter.name]!);
      for (const parameter of queryParameters) {
        const text = single(query, parameter.name);
        if (text !== undefined) variables[parameter.variable] = typedValue(parameter, text);
      }
      if (variableTypes.has('first')) {
        const limit = single(query, 'limit');
        variables['first'] = limit === undefined ? pageSizes.default : /^-?\d{1,15}$/.test(limit) ? Number(limit) : limit;
        const cursor = single(query, 'cursor');
        if (cursor !== undefined) variables['after'] = cursor;
      }
      projectionVariables(query, variables);
      sortVariable(query, variables);
      for (const [header, variable] of Object.entries(route.headers ?? {})) {
        const value = headers[header];
        if (typeof value === 'string') variables[variable] = value;
      }
      if (route.body) variables[route.body] = bodyAsInput(body, variableTypes.get(route.body));
      return variables;
    },
    restFieldOf,
    restTextOf(text, fields) {
      return text.replace(/\b[a-z][A-Za-z0-9]*(?:\.(?:[a-z][A-Za-z0-9]*|\d+))*\b/g, (name) => {
        const isField = fields.includes(name) || (/[A-Z.]/.test(name) && graphqlNames.has(name.split('.')[0]!));
        return isField ? restFieldOf(name) : name;
      });
    },
    pathParameters,
    queryParameters,
    paged: variableTypes.has('first'),
    sortFields: sorting?.fields.getValues().map((value) => value.name.toLowerCase()),
    projection,
    answerKey: answer,
    itemKeys,
    variableTypes,
    eventStream:
      route.eventStream &&
      compileOperationRoute(schema, { method: route.method, path: route.path, ...route.eventStream, ...(route.parameters ? { parameters: route.parameters } : {}) }),
  };
}

/** The operation's variables and the fields of their input objects, at any depth: the GraphQL names a message may use. */
function namesOf(variableTypes: ReadonlyMap<string, GraphQLInputType>): Set<string> {
  const names = new Set(variableTypes.keys());
  const walked = new Set<string>();
  const walk = (type: GraphQLInputType) => {
    const named = getNamedType(type);
    if (!isInputObjectType(named) || walked.has(named.name)) return;
    walked.add(named.name);
    for (const field of Object.values(named.getFields())) {
      names.add(field.name);
      walk(field.type);
    }
  };
  for (const type of variableTypes.values()) walk(type);
  return names;
}

/**
 * A JSON body value as the input type takes it: snake_case keys as the input's fields, enum values
 * in any case as the enum's names. Keys the input lacks stay, for the schema to refuse by name.
 */
function inputValue(value: unknown, type: GraphQLInputType | undefined, path: string): unknown {
  const named = type && getNamedType(type);
  if (Array.isArray(value)) return value.map((item, index) => inputValue(item, named, `${path}.${index}`));
  if (named && isEnumType(named) && typeof value === 'string') {
    const match = named.getValues().find((candidate) => candidate.name.toLowerCase() === value.toLowerCase());
    if (match) return match.name;
    const message = `${path} must be one of: ${named
      .getValues()
      .map((candidate) => candidate.name.toLowerCase())
      .join(', ')}.`;
    throw new AppError('validation_failed', message, { fieldErrors: [{ field: path, code: 'invalid', message }] });
  }
  if (value === null || typeof value !== 'object') return value;
  const fields = named && isInputObjectType(named) ? named.getFields() : {};
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => {
      const name = camelCaseOf(key);
      return [name, inputValue(entry, fields[name]?.type, path ? `${path}.${key}` : key)];
    }),
  );
}

/** The JSON body of a write as the GraphQL input object it fills; anything but an object is 422. */
function bodyAsInput(body: unknown, type: GraphQLInputType | undefined): Record<string, unknown> {
  if (body === undefined) return {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const fieldErrors: FieldError[] = [{ field: '(body)', code: 'invalid_type', message: 'Send a JSON object.' }];
    throw new AppError('validation_failed', 'The body must be a JSON object.', { fieldErrors });
  }
  return inputValue(body, type, '') as Record<string, unknown>;
}
