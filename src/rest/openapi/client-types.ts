import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { schema } from '../../graphql/schema.js';
import { projectPath } from '../../shared/project-root.js';
import { restRoutes } from '../table.js';
import { openApiDocuments } from './generate.js';

/**
 * `npm run generate:client` writes openapi/types/<document>.ts, the openapi-typescript types of the
 * documents the server serves, for typed clients such as openapi-fetch. `--check` (in `npm test`)
 * writes nothing and fails when a checked-in file differs from what the schema and the route table give.
 */
const check = process.argv.includes('--check');
const directory = projectPath('openapi', 'types');
let stale = 0;
for (const [name, document] of Object.entries(openApiDocuments(schema, restRoutes))) {
  const source = `/** Types of the ${name === 'v1' ? 'booking service, /v1' : 'directory, /api/v1'} (${name}.json), written by \`npm run generate:client\`: do not edit. */\n\n${astToString(await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]))}`;
  const file = `${directory}/${name}.ts`;
  if (!check) {
    mkdirSync(directory, { recursive: true });
    writeFileSync(file, source);
    continue;
  }
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== source) {
    stale++;
    console.error(`${file} is not what the schema and the route table give: run npm run generate:client and commit it.`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
