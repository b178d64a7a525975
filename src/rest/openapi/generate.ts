import type { GraphQLSchema } from 'graphql';
import { isOperationRoute, type RestRoute } from '../route.js';
import { sortedObject, type JsonSchema } from './components.js';
import { openApiPath, RouteDescriber } from './operations.js';
import { documentProse, sharedProse, type DocumentName } from './prose.js';
import { problemSchemas } from './responses.js';
import { Describer } from './schemas.js';

/**
 * The OpenAPI 3.1 documents, derived from the REST table, the routes' operations and the schema:
 * paths and methods from the table; parameters from the operations' variables; request bodies from
 * the input types; answers from the selection sets, shaped as the REST adapter shapes them; error
 * responses from what each route can really answer. Only descriptions, summaries, tags, examples and
 * route-specific error codes are written by hand, in prose.ts.
 */

/** Which document a route belongs to, by its path. */
export const documentOf = (path: string): DocumentName => (path.startsWith('/api/v1/') ? 'api-v1' : 'v1');

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
  const routeDescriber = new RouteDescriber(describer, schema, routes);
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
