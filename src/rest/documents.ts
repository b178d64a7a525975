import { readFileSync } from 'node:fs';
import type { RestRoute } from './routes.js';

/** The bundled OpenAPI documents (npm run generate:openapi writes them). */
function bundledDocument(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../../openapi/dist/${name}.json`, import.meta.url), 'utf8'));
}

const documents = [
  { path: '/v1/openapi.json', name: 'v1' },
  { path: '/api/v1/openapi.json', name: 'api-v1' },
];

export const documentRoutes: RestRoute[] = documents.map(({ path, name }) => ({
  method: 'GET',
  path,
  public: true,
  cacheSeconds: 300,
  handle: async () => ({ status: 200, body: bundledDocument(name) }),
}));
