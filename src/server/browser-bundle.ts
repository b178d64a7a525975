import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Builds the scripts the server hands to browsers (widget.v1.js, the dashboard) with esbuild. */

export interface BrowserBundle {
  /** What the bundle is, for messages. */
  name: string;
  entryPoint: string;
  outfile: string;
  banner: string;
  maxGzipBytes: number;
}

export interface BuiltBundle {
  path: string;
  bytes: number;
  gzipBytes: number;
}

/** One minified IIFE for browsers from 2019 on, refused when it outgrows its gzip budget. */
export async function buildBrowserBundle(bundle: BrowserBundle): Promise<BuiltBundle> {
  const result = await build({
    entryPoints: [bundle.entryPoint],
    outfile: bundle.outfile,
    write: false,
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2019',
    legalComments: 'none',
    banner: { js: `/* ${bundle.banner} */` },
    logLevel: 'warning',
  });
  const bytes = result.outputFiles[0]!.contents;
  const gzipBytes = gzipSync(bytes, { level: 9 }).length;
  if (gzipBytes > bundle.maxGzipBytes) {
    throw new Error(`${bundle.name} is ${gzipBytes} bytes gzipped, over the ${bundle.maxGzipBytes}-byte budget`);
  }
  // Written whole and renamed into place: a running server (or a parallel build) never reads half a file.
  mkdirSync(dirname(bundle.outfile), { recursive: true });
  const staging = `${bundle.outfile}.${process.pid}.tmp`;
  writeFileSync(staging, bytes);
  renameSync(staging, bundle.outfile);
  return { path: bundle.outfile, bytes: bytes.length, gzipBytes };
}

/** Runs the build when `moduleUrl` is the script node was started with, printing the size against the budget. */
export function buildWhenRunDirectly(moduleUrl: string, bundle: BrowserBundle): void {
  if (process.argv[1] !== fileURLToPath(moduleUrl)) return;
  buildBrowserBundle(bundle).then(
    ({ path, bytes, gzipBytes }) => {
      const kb = (count: number) => `${(count / 1024).toFixed(1)} KB`;
      console.log(`${bundle.name}: ${relative(process.cwd(), path)} ${kb(bytes)} (${kb(gzipBytes)} gzipped, budget ${kb(bundle.maxGzipBytes)})`);
    },
    (error: unknown) => {
      console.error(`${bundle.name}: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
