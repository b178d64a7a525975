import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSdl } from './src/graphql/schema.js';
import { restDocumentTransform } from './src/rest/document-transform.js';

/**
 * Prints the schema built by Pothos to schema/schema.graphql, and types the REST adapter's
 * operations (src/rest/operations/*.graphql) as restDocumentTransform completes them (REST names,
 * `fields=`/`include=` switches). `npm test` runs this with --check.
 */
const config: CodegenConfig = {
  schema: printSdl(),
  ignoreNoDocuments: true,
  generates: {
    'schema/schema.graphql': { plugins: ['schema-ast'], config: { includeDirectives: false } },
    'src/rest/__generated__/': {
      documents: ['src/rest/operations/**/*.graphql'],
      preset: 'client',
      documentTransforms: [restDocumentTransform],
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        emitLegacyCommonJSImports: false,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', Date: 'string', JSON: 'unknown', ID: 'string' },
        avoidOptionals: { field: true, inputValue: false, object: true },
      },
    },
  },
};

export default config;
