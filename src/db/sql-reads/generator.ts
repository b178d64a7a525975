import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// A CommonJS module whose named exports Node cannot detect: taken from its default export.
import generatorHelper from '@prisma/generator-helper';
import { mapModels } from './model-map.js';

/**
 * The Prisma generator that writes the SQL reads' model map (prisma/schema.prisma, generator
 * sqlReads): run by `prisma generate`, from the datamodel Prisma hands every generator.
 */
generatorHelper.generatorHandler({
  onManifest: () => ({ prettyName: 'SQL reads model map', defaultOutput: '../src/generated/sql-reads/model-map.ts' }),
  onGenerate: async (options) => {
    const output = options.generator.output?.value;
    if (!output) throw new Error('the sqlReads generator needs an output file');
    const mapModule = relative(dirname(output), fileURLToPath(new URL('./model-map.js', import.meta.url))).replaceAll('\\', '/');
    const text = [
      '/* eslint-disable */',
      '// Written by prisma generate (src/db/sql-reads/generator.ts): the tables and columns of prisma/schema.prisma.',
      `import type { ModelMap } from '${mapModule.startsWith('.') ? mapModule : `./${mapModule}`}';`,
      '',
      `export const modelMap: ModelMap = ${JSON.stringify(mapModels(options.dmmf.datamodel), null, 2)};`,
      '',
    ].join('\n');
    await mkdir(dirname(output), { recursive: true });
    await writeFile(output, text);
  },
});
