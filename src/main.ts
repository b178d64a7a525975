import { pino } from 'pino';
import { createApp } from './app.js';
import { prepareDatabase } from './bootstrap.js';
import { ConfigurationError, loadConfig } from './config.js';
import { ConfigError } from './db/connection.js';
import { DatabaseInUseError } from './db/embedded-lock.js';

/**
 * Starts the server; bad settings end start-up with one line and exit code 1 (2 when another process
 * holds the embedded database), never a stack trace.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.LOG_LEVEL });
  const database = await prepareDatabase(config, (line) => logger.info(line));
  const app = createApp({ config, database, secrets: database.secrets, logger });
  const url = await app.listen();
  logger.info(`hallowgate listening on ${url} (GraphQL ${url}/graphql, REST ${url}/v1 and ${url}/api/v1)`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: draining and shutting down`);
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigurationError || error instanceof ConfigError;
  process.stderr.write(`hallowgate: ${known ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof DatabaseInUseError ? 2 : 1);
});
