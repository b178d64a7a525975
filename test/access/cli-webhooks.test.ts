import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../faults/proxy.js';
import { openService } from '../support/bookable.js';
import { apiClient, futureSlot, type ApiCall } from '../support/http.js';
import { startReceiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { testSecretsKey } from '../support/secrets.js';
import { projectRoot, runCli } from './processes.js';

let server: TestServer;
let call: ApiCall;
let key: string;
let accountId: string;
let serviceId: string;
let workDir: string;

beforeAll(async () => {
  server = await startTestServer({ seed: true, config: { WEBHOOK_POLL_MS: 25 } });
  ({ key, accountId } = await server.createKey({ scopes: ['bookings:read', 'bookings:write', 'webhooks:manage'] }));
  call = apiClient(server.url, key);
  serviceId = await openService(server.prisma);
  workDir = mkdtempSync(join(tmpdir(), 'hallowgate-listen-'));
});
/** Listeners still running when a test fails, ended before the server so its connections close. */
const running = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await server?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let day = 30;
async function book(): Promise<string> {
  const booked = await call('POST', '/v1/bookings', { service_id: serviceId, start_time: futureSlot(day++), customer: { name: 'Listen Tester', email: 'listen@example.com' } });
  expect(booked.status).toBe(201);
  return booked.body.id;
}

interface EventBody {
  id: string;
  event: string;
  data: { id: string };
  test?: boolean;
}

/** `npx hallowgate listen …` as a developer runs it, in its own working directory; its stdout is collected. */
function startListener(args: string[], apiKey = key) {
  const child: ChildProcess = spawn(process.execPath, [join(projectRoot, 'bin/hallowgate.js'), 'listen', ...args], {
    cwd: workDir,
    env: { PATH: process.env['PATH'] ?? '', SECRETS_KEY: testSecretsKey, HALLOWGATE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    get output() {
      return output;
    },
    get errors() {
      return errors;
    },
    exited,
    /** Resolves with the first match of `pattern` in stdout, polling until `ms` have passed. */
    async waitFor(pattern: RegExp, ms = 90_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} from the listener; stdout:\n${output}\nstderr:\n${errors}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** Kills it outright, as a crash or a closed terminal would. */
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async interrupt() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

function verified(secret: string, received: { body: string; headers: Record<string, unknown> }[]): EventBody[] {
  const verifier = new Webhook(secret);
  return received.map((webhook) => verifier.verify(webhook.body, webhook.headers as Record<string, string>) as EventBody);
}

describe('hallowgate trigger', () => {
  it('sends the endpoint a signed test event of the kind given', async () => {
    const receiver = await startReceiver();
    const endpoint = (await call('POST', '/v1/webhook_endpoints', { url: receiver.url })).body;
    const triggered = await runCli(['trigger', 'booking.updated', '--endpoint', endpoint.id, '--server', server.url], { HALLOWGATE_API_KEY: key }, { cwd: workDir });
    expect(triggered.stderr).not.toMatch(/^hallowgate: (?!build)/m);
    expect(triggered.code).toBe(0);
    const delivery = JSON.parse(triggered.stdout) as { event_id: string; status: string; test: boolean };
    expect(delivery).toMatchObject({ status: 'succeeded', test: true });
    const [body] = verified(endpoint.secret, await receiver.waitFor(1));
    expect(body).toMatchObject({ id: delivery.event_id, event: 'booking.updated', test: true });

    const unknownKind = await runCli(['trigger', 'booking.deleted', '--endpoint', endpoint.id, '--server', server.url], { HALLOWGATE_API_KEY: key }, { cwd: workDir });
    expect([unknownKind.code, unknownKind.stderr]).toEqual([
      2,
      expect.stringContaining('trigger takes booking.created, booking.updated, booking.cancelled, waitlist.offered, api_key.usage_alert; not booking.deleted'),
    ]);
    const keyless = await runCli(['trigger', 'booking.created', '--endpoint', endpoint.id, '--server', server.url], {}, { cwd: workDir });
    expect([keyless.code, keyless.stderr]).toEqual([2, expect.stringContaining('HALLOWGATE_API_KEY is not set')]);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });
});

describe('hallowgate listen', () => {
  it('forwards each booking event, signed with the secret it prints, and resumes after a restart or a dropped connection with nothing missed or repeated', async () => {
    const receiver = await startReceiver();
    await book();
    const proxy = await startFaultProxy(server.url);
    const args = ['--forward-to', receiver.url, '--server', proxy.url];

    const first = startListener(args);
    const secret = (await first.waitFor(/Your webhook signing secret is (whsec_\S+) \(\^C to quit\)/))[1]!;
    await first.waitFor(/^Forwarding /m);
    const seen = await book();
    const [forwarded] = verified(secret, await receiver.waitFor(1, 60_000));
    expect(forwarded!.data.id).toBe(seen);
    expect(forwarded!.test).toBeUndefined();
    // Exactly the body a webhook endpoint receives: the event as the log lists it.
    const log = (await call('GET', '/v1/booking_events?limit=100')).body.data as EventBody[];
    expect(forwarded).toEqual(log.find((event) => event.id === forwarded!.id));
    await first.waitFor(new RegExp(`--> booking\\.created \\[${forwarded!.id}\\]  <-- 200`));
    await first.kill();

    // While it is down: a booking made and cancelled.
    const missed = await book();
    await call('DELETE', `/v1/bookings/${missed}`);
    const second = startListener(args);
    expect((await second.waitFor(/Your webhook signing secret is (whsec_\S+)/))[1]).toBe(secret);
    await receiver.waitFor(3, 60_000);

    // The connection drops (a restarting server, a network cut): what happens meanwhile arrives once it is back.
    proxy.cut();
    await second.waitFor(/Connection lost/);
    // Its tries while the connection stays cut say why each failed.
    await second.waitFor(/Connection lost \(cannot reach the server at \S+ \(\w+: [^)]+\)\); reconnecting in \d+ s/);
    const duringCut = await book();
    proxy.restore();
    await receiver.waitFor(4, 60_000);
    const live = await book();
    const all = verified(secret, await receiver.waitFor(5, 60_000));
    expect(all.map((event) => [event.event, event.data.id])).toEqual([
      ['booking.created', seen],
      ['booking.created', missed],
      ['booking.cancelled', missed],
      ['booking.created', duringCut],
      ['booking.created', live],
    ]);
    expect(new Set(all.map((event) => event.id)).size).toBe(5);
    expect(await second.interrupt()).toBe(0);
    const state = JSON.parse(readFileSync(join(workDir, '.data', `listen-${accountId}.json`), 'utf8')) as { after: string };
    expect(state.after).toBe(all[4]!.id);
    expect(receiver.received).toHaveLength(5);
    await proxy.close();
    await receiver.close();
  }, 240_000);

  it('forwards only the kinds --events names', async () => {
    const receiver = await startReceiver();
    const listener = startListener(['--forward-to', receiver.url, '--server', server.url, '--events', 'booking.cancelled']);
    const secret = (await listener.waitFor(/Your webhook signing secret is (whsec_\S+)/))[1]!;
    await listener.waitFor(/^Forwarding booking\.cancelled /m);
    const kept = await book();
    await call('DELETE', `/v1/bookings/${kept}`);
    const [cancelled] = verified(secret, await receiver.waitFor(1, 60_000));
    expect([cancelled!.event, cancelled!.data.id]).toEqual(['booking.cancelled', kept]);
    expect(await listener.interrupt()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  }, 120_000);

  it('stops, saying which key to fix, once its key is revoked', async () => {
    const receiver = await startReceiver();
    const revoked = await server.createKey({ scopes: ['bookings:read'] });
    const listener = startListener(['--forward-to', receiver.url, '--server', server.url], revoked.key);
    await listener.waitFor(/^Forwarding /m);
    await server.prisma.apiKey.update({ where: { id: revoked.keyId }, data: { revokedAt: new Date() } });
    expect(await listener.exited).toBe(1);
    expect(listener.errors).toMatch(/refused the API key in HALLOWGATE_API_KEY .*: set HALLOWGATE_API_KEY to a key of the account/);
    await receiver.close();
  }, 60_000);
});
