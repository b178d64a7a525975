import { parseArgs } from 'node:util';
import { ConfigurationError } from '../config.js';
import { ConfigError, DatabaseUnreachableError } from '../db/config-error.js';
import { resolve } from 'node:path';
import { logEventTypes, type LogEventType } from '../events/kinds.js';
import { adminRequestFor, eventKinds, list, optionSpec, triggerRequestFor, usage, UsageError, type Options } from './commands.js';
import { listen } from './listen.js';
import { sendWholeList, serverTransport, type ServerTarget, type Transport } from './transport.js';

/**
 * `hallowgate` — operator commands for accounts, API keys, widget tokens and services, and an
 * account's webhook testing commands (trigger, listen). Exit codes: 0 done, 1 the request was
 * refused or failed, 2 the command or its setup is wrong.
 */

class SetupError extends Error {
  override name = 'SetupError';
}

const defaultTimeoutSeconds = 30;

function timeoutMsOf(option: Options[string]): number {
  if (option === undefined) return defaultTimeoutSeconds * 1000;
  const seconds = Number(option);
  if (typeof option !== 'string' || !(seconds > 0)) throw new UsageError(`--timeout takes a number of seconds above 0, not ${JSON.stringify(option)}.`);
  return seconds * 1000;
}

async function openTransport(options: Options, env: NodeJS.ProcessEnv): Promise<Transport> {
  const server = (options['server'] as string | undefined) ?? env['HALLOWGATE_URL'];
  if (server) {
    const timeoutMs = timeoutMsOf(options['timeout']);
    const given = options['admin-key'] as string | undefined;
    const adminKey = given ?? env['ADMIN_API_KEY'];
    if (!adminKey) {
      throw new SetupError(
        `ADMIN_API_KEY is not set: the server at ${server} takes only the operator key it was started with (ADMIN_API_KEY=… npm start); export ADMIN_API_KEY with that value, or pass --admin-key.`,
      );
    }
    if (!URL.canParse(server)) throw new SetupError(`--server / HALLOWGATE_URL must be a URL such as http://localhost:4000, not ${JSON.stringify(server)}.`);
    return serverTransport({ url: server, key: adminKey, holder: 'operator', keySource: given ? '--admin-key' : 'ADMIN_API_KEY', timeoutMs });
  }
  // Loaded only here: it brings the whole GraphQL schema and Prisma along.
  const { databaseTransport } = await import('./database-transport.js');
  return databaseTransport(env);
}

/** trigger and listen act as an account, through a running server (the local one unless told otherwise). */
function accountTarget(options: Options, env: NodeJS.ProcessEnv): ServerTarget {
  const server = (options['server'] as string | undefined) ?? env['HALLOWGATE_URL'] ?? 'http://localhost:4000';
  if (!URL.canParse(server)) throw new SetupError(`--server / HALLOWGATE_URL must be a URL such as http://localhost:4000, not ${JSON.stringify(server)}.`);
  const given = options['api-key'] as string | undefined;
  const key = given ?? env['HALLOWGATE_API_KEY'];
  if (!key) {
    throw new SetupError(
      'HALLOWGATE_API_KEY is not set: trigger and listen act as an account; export HALLOWGATE_API_KEY=<KEY_ID>.<SECRET> (a key of the account with webhooks:manage and bookings:read, from hallowgate keys create), or pass --api-key.',
    );
  }
  return { url: server, key, holder: 'account', keySource: given ? '--api-key' : 'HALLOWGATE_API_KEY', timeoutMs: timeoutMsOf(options['timeout']) };
}

async function runListen(options: Options, env: NodeJS.ProcessEnv): Promise<number> {
  const forwardTo = options['forward-to'];
  if (typeof forwardTo !== 'string') throw new UsageError('Give the local URL to forward to: hallowgate listen --forward-to http://localhost:3000/hooks');
  if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol)) throw new UsageError(`--forward-to takes an http(s) URL, not ${JSON.stringify(forwardTo)}.`);
  const given = list(options['events']);
  const types = given?.length ? (eventKinds(given, logEventTypes, '--events') as LogEventType[]) : null;
  const target = accountTarget(options, env);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  await listen({
    target,
    forwardTo: new URL(forwardTo),
    types,
    after: options['after'] as string | undefined,
    stateDir: resolve('.data'),
    signal: stop.signal,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  return 0;
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: optionSpec, allowPositionals: true });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  if (positionals[0] === 'listen') return runListen(values, env);
  const trigger = positionals[0] === 'trigger';
  const request = trigger ? triggerRequestFor(positionals, values) : adminRequestFor(positionals, values);
  const transport = trigger ? serverTransport(accountTarget(values, env)) : await openTransport(values, env);
  try {
    const response = request.wholeList ? await sendWholeList(transport, request) : await transport.send(request);
    const output = `${JSON.stringify(response.body, null, 2)}\n`;
    if (response.status >= 400) {
      process.stderr.write(output);
      return 1;
    }
    process.stdout.write(output);
    const delivery = response.body as { status?: unknown; attempts?: { response_status: number | null; error: string | null }[] } | null;
    if (trigger && delivery?.status === 'failed') {
      const [attempt] = delivery.attempts ?? [];
      process.stderr.write(`hallowgate: the endpoint did not accept the test event (${attempt?.error ?? `it answered ${attempt?.response_status}`}).\n`);
      return 1;
    }
    const shown = response.body as { key?: unknown; signing_secret?: unknown } | null;
    if (shown?.key || shown?.signing_secret) process.stderr.write('hallowgate: store the secret now; it is not shown again.\n');
    return 0;
  } finally {
    await transport.close();
  }
}

run(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const setupWrong =
      error instanceof UsageError ||
      error instanceof SetupError ||
      // A malformed setting (DATABASE_URL among them), or the embedded database held by a server.
      error instanceof ConfigurationError ||
      (error instanceof ConfigError && !(error instanceof DatabaseUnreachableError)) ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`hallowgate: ${error instanceof Error ? error.message : String(error)}\n`);
    // Otherwise the command was right but could not be carried out (CommandFailed, or anything unforeseen).
    process.exitCode = setupWrong ? 2 : 1;
  },
);
