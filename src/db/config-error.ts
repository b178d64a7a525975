/** A setting that cannot work; its message is the one line start-up prints. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The database did not answer (refused, or no answer within the deadline): the setting may be right and the server down. */
export class DatabaseUnreachableError extends ConfigError {
  override name = 'DatabaseUnreachableError';
}
