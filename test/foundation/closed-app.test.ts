import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';

// The garbage collector, on demand: whether a closed app is still reachable is what this file asks.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

it('lets go of a closed app and its database: nothing the process keeps (metrics and their observers) holds on to them', async () => {
  const closed = await (async () => {
    const server = await startTestServer({ seed: true });
    // A scrape runs every collector, the process's own (GC, event loop) and the app's.
    const scrape = await fetch(`${server.url}/metrics`);
    expect(await scrape.text()).toContain('hallowgate_operations{state="running"}');
    const database = new WeakRef(server.database);
    await server.close();
    return database;
  })();
  // A WeakRef keeps its target until the job that read it ends: each collection runs in a job of its own.
  let released = false;
  for (let attempt = 0; attempt < 20 && !released; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 0));
    released = closed.deref() === undefined;
  }
  expect(released).toBe(true);
});

it('shows the process metrics once in each app of the process', async () => {
  const [first, second] = [await startTestServer(), await startTestServer()];
  try {
    for (const server of [first, second]) {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(text.match(/^# TYPE process_cpu_user_seconds_total counter$/gm)).toHaveLength(1);
      expect(text).toContain('# TYPE hallowgate_http_requests_total counter');
    }
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});
