import SchemaBuilder, { BasePlugin, decodeBase64, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { earliestTime, latestTime } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { idKindOf } from '../shared/ids.js';

/**
 * Checks every field's arguments before anything reads them, for GraphQL and REST alike (REST runs
 * the same schema): cursors must be ones this API issued, page sizes 1–100, and text must be storable
 * in PostgreSQL.
 * Argument mappers also run where plugin-prisma plans nested connections, so a cursor deep in a
 * query is checked before the root field's database query is built.
 */

/** Marks the `after`/`before` arguments of connections (set through the relay options). */
export const cursorArgument = 'hallowgateCursor';

/** Marks a connection field that pages by cursors of its own (keyset cursors), not plugin-prisma's. */
export const readsOwnCursors = 'hallowgateReadsOwnCursors';

/** Marks the `first`/`last` arguments of connections (set through the relay options). */
export const pageSizeArgument = 'hallowgatePageSize';

/** One page-size rule for GraphQL and REST (`limit`): 1 to 100 items. */
export const pageSizes = { default: 20, max: 100 };

/** What an issued cursor decodes to: plugin-prisma's string chunk of a record id. */
const issuedCursor = /^GPC:S:(.*)$/s;

/**
 * A keyset cursor, for lists that page by the values of their order's keys (src/bookings/list.ts):
 * the order's name, the ISO time of its key in the last row sent, and that row's id.
 */
export interface KeysetCursor {
  order: string;
  at: Date;
  id: string;
}

const keysetCursorPrefix = 'HGK:';

/**
 * `HGK:<order>:<epoch ms>:<id>`. Plain text rather than base64 of JSON: a page writes one cursor per
 * row, and this costs a string concatenation; it stays opaque to clients all the same, since any
 * text that is not one this API could have issued is refused.
 */
export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return `${keysetCursorPrefix}${cursor.order}:${cursor.at.getTime()}:${cursor.id}`;
}

const keysetCursorPattern = /^HGK:([a-z_]+):(-?\d{1,15}):(.+)$/s;

/** The keyset cursor `cursor` encodes, or undefined for any other text. */
export function decodeKeysetCursor(cursor: string): KeysetCursor | undefined {
  const match = keysetCursorPattern.exec(cursor);
  if (!match) return undefined;
  const [, order = '', milliseconds = '', id = ''] = match;
  const at = new Date(Number(milliseconds));
  // A time no stored row can hold: a forged cursor naming one is refused, not sent to the database.
  if (!(at.getTime() >= earliestTime && at.getTime() <= latestTime) || idKindOf(id) === undefined) return undefined;
  return { order, at, id };
}

/** Whether `cursor` is one plugin-prisma issued: a record id's, base64-encoded. */
function isIssuedCursor(cursor: string): boolean {
  let decoded: string;
  try {
    decoded = decodeBase64(cursor);
  } catch {
    return false;
  }
  const id = issuedCursor.exec(decoded)?.[1];
  return id !== undefined && idKindOf(id) !== undefined;
}

/** A cursor of a connection that reads its own (`ownCursors`) is only checked to be there: an empty one would read as none. */
function checkCursor(argument: string, value: unknown, ownCursors: boolean) {
  if (typeof value === 'string' && (value === '' || (!ownCursors && !isIssuedCursor(value)))) {
    throw new AppError('invalid_parameter', 'The cursor is not one this API issued.', {
      fieldErrors: [{ field: argument, code: 'invalid', message: 'Use the cursor of a previous page.' }],
    });
  }
}

function checkPageSize(argument: string, value: unknown) {
  if (typeof value === 'number' && !(value >= 1 && value <= pageSizes.max)) {
    const message = `${argument} must be from 1 to ${pageSizes.max}.`;
    throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: argument, code: 'out_of_range', message }] });
  }
}

/** first and last together: the connection would page by one and silently ignore the other. */
function checkOnePageSize(given: readonly string[]) {
  if (given.length < 2) return;
  const message = `Send one of ${given.join(' and ')}, not both.`;
  throw new AppError('invalid_parameter', message, { fieldErrors: [{ field: given.at(-1)!, code: 'invalid', message }] });
}

/** Why PostgreSQL would not store a text as it was sent: a NUL it refuses, or a lone surrogate it would store as U+FFFD. */
function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain NUL (U+0000) characters';
  if (/\p{Cs}/u.test(text)) return 'must be well-formed Unicode: it has a lone surrogate (such as \\ud800), which is no character';
  return undefined;
}

/** The dotted path of the first string that cannot be stored as sent, and why, if any. */
function unstorableText(value: unknown, path: string): { path: string; reason: string } | undefined {
  if (typeof value === 'string') {
    const reason = unstorable(value);
    return reason ? { path, reason } : undefined;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unstorableText(item, path);
      if (found) return found;
    }
    return undefined;
  }
  // Input objects only: the schema has no recursive input types, so this stays shallow.
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, entry] of Object.entries(value)) {
      const found = unstorableText(entry, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/** Such a text in an input object (a body) is a validation failure; in a plain argument, a bad parameter. */
function checkText(argument: string, value: unknown) {
  const isInputObject = value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
  const found = unstorableText(value, isInputObject ? '' : argument);
  if (found === undefined) return;
  const message = `${found.path} ${found.reason}.`;
  const fieldErrors = [{ field: found.path, code: 'invalid_character', message }];
  throw new AppError(isInputObject ? 'validation_failed' : 'invalid_parameter', message, { fieldErrors });
}

export class ArgumentChecksPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const argumentNames = Object.keys(fieldConfig.args);
    if (argumentNames.length === 0) return fieldConfig;
    // Global ids (node, nodes) take any text: an id naming nothing resolves to null.
    const textArguments = argumentNames.filter((name) => !fieldConfig.args[name]!.extensions?.['isRelayGlobalID']);
    // A connection that reads its own cursors (the bookings list's keyset cursors) refuses what it cannot read itself.
    const ownCursors = fieldConfig.extensions?.[readsOwnCursors] === true;
    const cursorArguments = argumentNames.filter((name) => fieldConfig.args[name]!.extensions?.[cursorArgument]);
    const pageSizeArguments = argumentNames.filter((name) => fieldConfig.args[name]!.extensions?.[pageSizeArgument]);
    return {
      ...fieldConfig,
      argMappers: [
        ...(fieldConfig.argMappers ?? []),
        (args) => {
          for (const name of cursorArguments) checkCursor(name, args[name], ownCursors);
          for (const name of pageSizeArguments) checkPageSize(name, args[name]);
          checkOnePageSize(pageSizeArguments.filter((name) => args[name] != null));
          for (const name of textArguments) checkText(name, args[name]);
          return args;
        },
      ],
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      argumentChecks: ArgumentChecksPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('argumentChecks', ArgumentChecksPlugin);

export default 'argumentChecks' as const;
