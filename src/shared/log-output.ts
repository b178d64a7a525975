import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { logCorrelation } from '../tracing/tracing.js';

/**
 * Where log lines go and in which form: one JSON object a line for machines (a pipe, a file, a log
 * collector), plain lines for a person at a terminal, so that start-up's "demo API key: …" reads as
 * a line of its own.
 */
export type LogFormat = 'json' | 'plain';

export function logFormatFor(output: { isTTY?: boolean }): LogFormat {
  return output.isTTY === true ? 'plain' : 'json';
}

const levelNames: Record<number, Level> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** pino's own fields, shown otherwise or not at all. */
const ownFields = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

function timeOf(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  return date.toTimeString().slice(0, 8);
}

/** One of pino's JSON lines as a person reads it: `18:30:02 demo API key: key_…`, the level named from warn on, other fields after. */
export function plainLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = levelNames[entry['level'] as number] ?? 'info';
  const parts = [timeOf(entry['time'])];
  if (level !== 'info') parts.push(level.toUpperCase());
  parts.push(String(entry['msg'] ?? ''));
  for (const [name, value] of Object.entries(entry)) {
    if (!ownFields.has(name) && value !== undefined) parts.push(`${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  let line = parts.join(' ');
  const err = entry['err'] as { stack?: string; message?: string } | undefined;
  if (err) line += `\n  ${(err.stack ?? err.message ?? String(err)).replaceAll('\n', '\n  ')}`;
  return `${line}\n`;
}

/** A destination that writes pino's lines to `output` as plain lines. */
export function plainDestination(output: { write(text: string): unknown }): DestinationStream {
  return { write: (json: string) => void output.write(plainLine(json)) };
}

/** The server's logger at `level`, plain on a terminal and JSON otherwise. */
export function createLogger(level: string, output: NodeJS.WriteStream = process.stdout): Logger {
  const options = { level, ...logCorrelation() };
  if (logFormatFor(output) === 'plain') return pino(options, plainDestination(output));
  return output === process.stdout ? pino(options) : pino(options, output);
}
