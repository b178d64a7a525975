import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const executablePath = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. Without the background-networking flags it keeps dialling Google's
 * hosts, which this network refuses. A missing browser is a failure, never a skip.
 */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`${executablePath} is missing: install Debian's chromium package (.ci/run does)`);
  }
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
