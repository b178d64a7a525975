import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { brotliDecompress, createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

const debianChromium = '/usr/bin/chromium';

/** Where a test run's browser comes from, for the launcher and for its own test. */
export interface ChromiumSource {
  executablePath: string;
  /** Libraries the binary needs, when they come with it rather than from the system. */
  libraryPath?: string;
}

/**
 * In order: `CHROMIUM_PATH`, Debian's Chromium, then the headless Chromium that `npm install` brings
 * (@sparticuz/chromium ships it brotli-compressed in its tarball, for Linux x64), unpacked once per
 * version under the temporary directory.
 */
export async function findChromium(environment: NodeJS.ProcessEnv = process.env): Promise<ChromiumSource> {
  const configured = environment.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return { executablePath: configured };
  }
  if (existsSync(debianChromium)) return { executablePath: debianChromium };
  return packagedChromium();
}

export async function packagedChromium(): Promise<ChromiumSource> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`No Chromium: the packaged one (@sparticuz/chromium) is for Linux x64 only; set CHROMIUM_PATH to a Chromium or Chrome binary`);
  }
  // The package's own unpacker writes to fixed names in /tmp that concurrent test files would race on.
  const packageDirectory = (createRequire(import.meta.url).resolve.paths('@sparticuz/chromium') ?? [])
    .map((modules) => join(modules, '@sparticuz', 'chromium'))
    .find((candidate) => existsSync(join(candidate, 'bin', 'chromium.br')));
  if (!packageDirectory) throw new Error('No Chromium: @sparticuz/chromium is not installed (npm install), and neither CHROMIUM_PATH nor /usr/bin/chromium is there');
  const binDirectory = join(packageDirectory, 'bin');
  const { version } = JSON.parse(await readFile(join(packageDirectory, 'package.json'), 'utf8')) as { version: string };
  const directory = join(tmpdir(), `hallowgate-chromium-${version}`);
  const source = { executablePath: join(directory, 'chromium'), libraryPath: join(directory, 'lib') };
  if (existsSync(source.executablePath)) return source;

  // Each test file unpacks into its own names, then renames into place: the binary appears last
  // and whole, so its presence means everything is there.
  await mkdir(directory, { recursive: true });
  const partial = `.partial-${process.pid}`;
  const libraries = await promisify(brotliDecompress)(await readFile(join(binDirectory, 'al2023.tar.br')));
  await mkdir(source.libraryPath + partial, { recursive: true });
  for (const [name, content] of tarFiles(libraries)) await writeFile(join(source.libraryPath + partial, name.replace(/^.*\//, '')), content);
  await rename(source.libraryPath + partial, source.libraryPath).catch(() => rm(source.libraryPath + partial, { recursive: true }));
  await pipeline(createReadStream(join(binDirectory, 'chromium.br')), createBrotliDecompress(), createWriteStream(source.executablePath + partial, { mode: 0o755 }));
  await rename(source.executablePath + partial, source.executablePath);
  return source;
}

/** The regular files of a plain (ustar) tar archive. */
function* tarFiles(archive: Buffer): Generator<[string, Buffer]> {
  const text = (start: number, length: number, at: number) => archive.toString('utf8', at + start, at + start + length).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= archive.length && archive[at] !== 0;) {
    const size = Number.parseInt(text(124, 12, at).trim(), 8);
    if (text(156, 1, at) === '0') yield [text(0, 100, at), archive.subarray(at + 512, at + 512 + size)];
    at += 512 + Math.ceil(size / 512) * 512;
  }
}

/**
 * The packaged Chromium's libraries first. It takes the page language from LANG and reads the C
 * locale (usual in containers) as `en-US@posix`, a tag Intl refuses: pages get `en-US` instead.
 */
function packagedEnvironment(libraryPath: string): NodeJS.ProcessEnv {
  const language = /^(C|POSIX)(\.|$)/.test(process.env.LC_ALL || process.env.LC_MESSAGES || process.env.LANG || 'C') ? { LC_ALL: 'en_US.UTF-8' } : {};
  return { ...process.env, ...language, LD_LIBRARY_PATH: [libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
}

/**
 * Headless. Without the background-networking flags Chromium keeps dialling Google's hosts, which
 * this network refuses. A missing browser is a failure, never a skip.
 */
export async function launchChromium(source?: ChromiumSource): Promise<Browser> {
  const { executablePath, libraryPath } = source ?? (await findChromium());
  return chromium.launch({
    executablePath,
    env: libraryPath ? packagedEnvironment(libraryPath) : process.env,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
