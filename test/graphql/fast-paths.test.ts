import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ConfigurationError, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/connection.js';
import { fastPaths, fastPathsRule, parseFastPaths } from '../../src/fast-paths.js';
import { createSecretBox } from '../../src/shared/secrets.js';
import { testSecretsKey } from '../support/secrets.js';
import { describeFastPaths } from '../support/fast-paths.js';

// As HALLOWGATE_FAST_PATHS says (unset: every fast path on); CI runs this file again with it off.
describeFastPaths();

describe('HALLOWGATE_FAST_PATHS', () => {
  const on = { 'plan-cache': true, 'node-ids': true, 'direct-reads': true, 'compiled-execution': true, 'json-post': true, 'response-cache': true };
  const off = Object.fromEntries(Object.keys(on).map((name) => [name, false]));

  it('reads on, off, and paths turned on and off from there, left to right', () => {
    expect(parseFastPaths(undefined)).toEqual(on);
    expect(parseFastPaths('')).toEqual(on);
    expect(parseFastPaths('on')).toEqual(on);
    expect(parseFastPaths('OFF')).toEqual(off);
    expect(parseFastPaths('-response-cache, -direct-reads')).toEqual({ ...on, 'response-cache': false, 'direct-reads': false });
    expect(parseFastPaths('off,+plan-cache')).toEqual({ ...off, 'plan-cache': true });
    expect(parseFastPaths('+plan-cache,off')).toEqual(off);
  });

  it('refuses anything else with the rule, as every other setting', () => {
    for (const bad of ['no', 'response-cache', '-kept-answers', 'off;+plan-cache']) expect(parseFastPaths(bad)).toHaveProperty('error');
    expect(() => loadConfig({ HALLOWGATE_FAST_PATHS: '-kept-answers' })).toThrow(`HALLOWGATE_FAST_PATHS must be ${fastPathsRule}; "-kept-answers" is none of these`);
  });

  it("is the environment's, read when the code loaded: a server configured otherwise refuses to start", () => {
    const otherwise = fastPaths['response-cache'] ? '-response-cache' : 'on';
    const config = loadConfig({ HALLOWGATE_FAST_PATHS: otherwise, SECRETS_KEY: testSecretsKey, LOG_LEVEL: 'silent' });
    // Refused before the database is touched.
    expect(() => createApp({ config, database: {} as Database, secrets: createSecretBox(config.SECRETS_KEY!) })).toThrow(ConfigurationError);
    expect(loadConfig({}).HALLOWGATE_FAST_PATHS).toEqual(fastPaths);
  });
});
