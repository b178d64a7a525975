import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { widgetBundlePath } from './paths.js';

/** Builds widget.v1.js: one minified IIFE with no runtime dependencies, for browsers from 2019 on. */

const entryPoint = fileURLToPath(new URL('./client/index.ts', import.meta.url));
const maxGzipBytes = 15 * 1024;

export interface WidgetBuild {
  path: string;
  bytes: number;
  gzipBytes: number;
}

export async function buildWidget(): Promise<WidgetBuild> {
  const result = await build({
    entryPoints: [entryPoint],
    outfile: widgetBundlePath,
    write: false,
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2019',
    legalComments: 'none',
    banner: { js: '/* widget.v1.js: Halloween events widget */' },
    logLevel: 'warning',
  });
  const bytes = result.outputFiles[0]!.contents;
  const gzipBytes = gzipSync(bytes, { level: 9 }).length;
  if (gzipBytes > maxGzipBytes) {
    throw new Error(`widget.v1.js is ${gzipBytes} bytes gzipped, over the ${maxGzipBytes}-byte budget`);
  }
  // Written whole and renamed into place: a running server (or a parallel build) never reads half a file.
  mkdirSync(dirname(widgetBundlePath), { recursive: true });
  const staging = `${widgetBundlePath}.${process.pid}.tmp`;
  writeFileSync(staging, bytes);
  renameSync(staging, widgetBundlePath);
  return { path: widgetBundlePath, bytes: bytes.length, gzipBytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildWidget().then(
    ({ path, bytes, gzipBytes }) => {
      const kb = (count: number) => `${(count / 1024).toFixed(1)} KB`;
      console.log(`widget: ${relative(process.cwd(), path)} ${kb(bytes)} (${kb(gzipBytes)} gzipped, budget ${kb(maxGzipBytes)})`);
    },
    (error: unknown) => {
      console.error(`widget: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
