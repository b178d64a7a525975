import { createServer } from 'node:net';
import { ConfigurationError, loadConfig, type Config } from './config.js';
import { ConfigError } from './db/connection.js';
import { DatabaseInUseError } from './db/embedded-lock.js';
import { createLogger } from './shared/log-output.js';
import { asyncContextCost, nodeFlagsOfThisProcess, startTracing } from './tracing/tracing.js';

/** Why the server cannot listen at HOST:PORT, in one line; null when it can. */
function listenRefusal(error: NodeJS.ErrnoException, config: Config): string | null {
  const where = `${config.HOST}:${config.PORT}`;
  if (error.code === 'EADDRINUSE') return `port ${config.PORT} is in use (${where}): stop what listens there, or set PORT to another port`;
  if (error.code === 'EACCES') return `no permission to listen on ${where}: set PORT to 1024 or above`;
  if (error.code === 'EADDRNOTAVAIL') return `HOST ${config.HOST} is not an address of this machine`;
  return null;
}

/** Binds HOST:PORT for a moment, so a port in use stops start-up before the database is migrated and seeded. */
async function checkPort(config: Config): Promise<void> {
  if (config.PORT === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConfigurationError(listenRefusal(error, config) ?? `cannot listen on ${config.HOST}:${config.PORT}: ${error.message}`)),
    );
    probe.listen(config.PORT, config.HOST, () => probe.close(() => resolve()));
  });
}

/** Where it listens, said as it is: every address when bound to 0.0.0.0 or ::, with the URL to open on this machine. */
function listeningLine(url: string, config: Config): string {
  const port = new URL(url).port;
  const everywhere = config.HOST === '0.0.0.0' || config.HOST === '::';
  const local = everywhere ? `http://localhost:${port}` : url;
  const bound = everywhere ? `listening on http://${config.HOST === '::' ? '[::]' : '0.0.0.0'}:${port}, every address of this machine` : `listening on ${url}`;
  return `hallowgate ${bound} (GraphQL ${local}/graphql, REST ${local}/v1 and ${local}/api/v1)`;
}

/**
 * Starts the server; bad settings end start-up with one line and exit code 1 (2 when another process
 * holds the embedded database), never a stack trace.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  // Before the logger, the database and the app, which each trace only when it is on by then.
  const tracing = await startTracing(config);
  const logger = createLogger(config.LOG_LEVEL);
  const tracingCost = tracing && asyncContextCost(process.versions.node, nodeFlagsOfThisProcess());
  if (tracingCost) logger.warn(tracingCost);
  tracing?.reportExportsTo({ warn: (message) => logger.warn(message), info: (message) => logger.info(message) });
  await checkPort(config);
  // Loaded once the settings and the port are known good: the schema, Prisma and the rest take seconds.
  const [{ prepareDatabase }, { createApp }] = await Promise.all([import('./bootstrap.js'), import('./app.js')]);
  const database = await prepareDatabase(config, (line) => logger.info(line));
  const app = createApp({ config, database, secrets: database.secrets, logger });
  const url = await app.listen().catch(async (error: NodeJS.ErrnoException) => {
    // Taken between the check and now.
    await database.close();
    throw listenRefusal(error, config) ? new ConfigurationError(listenRefusal(error, config)!) : error;
  });
  logger.info(listeningLine(url, config));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: draining and shutting down`);
    let stopped = true;
    try {
      await app.close();
      await database.close();
    } catch (error) {
      logger.error({ err: error }, 'shutting down failed');
      stopped = false;
    }
    // The spans of the last requests, sent before the process ends; a collector that is down loses them, and says so.
    const spansLost = await tracing?.shutdown();
    if (spansLost) logger.warn(spansLost);
    process.exit(stopped ? 0 : 1);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigurationError || error instanceof ConfigError;
  process.stderr.write(`hallowgate: ${known ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof DatabaseInUseError ? 2 : 1);
});
