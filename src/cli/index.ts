import { parseArgs } from 'node:util';
import { ConfigError } from '../db/config-error.js';
import { adminRequestFor, optionSpec, usage, UsageError, type Options } from './commands.js';
import { serverTransport, type Transport } from './transport.js';

/**
 * `hallowgate` — operator commands for accounts, API keys, widget tokens and services. Exit codes: 0 done,
 * 1 the request was refused or failed, 2 the command or its setup is wrong.
 */

class SetupError extends Error {
  override name = 'SetupError';
}

async function openTransport(options: Options, env: NodeJS.ProcessEnv): Promise<Transport> {
  const server = (options['server'] as string | undefined) ?? env['HALLOWGATE_URL'];
  if (server) {
    const adminKey = (options['admin-key'] as string | undefined) ?? env['ADMIN_API_KEY'];
    if (!adminKey) throw new SetupError('--server needs an operator key: --admin-key <KEY_ID>.<SECRET> or ADMIN_API_KEY.');
    return serverTransport(server, adminKey);
  }
  // Loaded only here: it brings the whole GraphQL schema and Prisma along.
  const { databaseTransport } = await import('./database-transport.js');
  return databaseTransport(env);
}

async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: optionSpec, allowPositionals: true });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const request = adminRequestFor(positionals, values);
  const transport = await openTransport(values, env);
  try {
    const response = await transport.send(request);
    const output = `${JSON.stringify(response.body, null, 2)}\n`;
    if (response.status >= 400) {
      process.stderr.write(output);
      return 1;
    }
    process.stdout.write(output);
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
    const expected =
      error instanceof UsageError ||
      error instanceof SetupError ||
      // A DATABASE_URL that cannot work, or the embedded database held by a server.
      error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`hallowgate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = expected ? 2 : 1;
  },
);
