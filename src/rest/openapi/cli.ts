import { mkdirSync, writeFileSync } from 'node:fs';
import { schema } from '../../graphql/schema.js';
import { projectPath } from '../../shared/project-root.js';
import { restRoutes } from '../table.js';
import { openApiDocuments } from './generate.js';

/** `npm run generate:openapi`: writes openapi/dist/v1.json and openapi/dist/api-v1.json, the documents the server serves. */
const directory = projectPath('openapi', 'dist');
mkdirSync(directory, { recursive: true });
for (const [name, document] of Object.entries(openApiDocuments(schema, restRoutes))) {
  writeFileSync(`${directory}/${name}.json`, `${JSON.stringify(document, null, 2)}\n`);
}
