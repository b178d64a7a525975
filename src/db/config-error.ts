/** A setting that cannot work; its message is the one line start-up prints. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
