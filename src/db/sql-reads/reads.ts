import { createHash } from 'node:crypto';
import { fastPathUses } from '../../fast-paths.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { modelMap } from '../../generated/sql-reads/model-map.js';
import type { PiggybackedRead, DirectReads } from '../root-reads.js';
import { compileRead } from './compile.js';
import type { ModelMap } from './model-map.js';
import { readableModels } from './models.js';
import { rowDecoderOf, type RowDecoder } from './rows.js';
import { shapeOf } from './shape.js';
import { compile, type Statement } from './sql.js';
import { Untranslated } from './untranslated.js';

/*
 * The SQL reads: Prisma's findMany and findUnique of the root fields as one statement through the
 * driver (the direct-reads fast path, src/fast-paths.ts). One job per file:
 *   model-map.ts, generator.ts  the tables and columns, written by `prisma generate`
 *   models.ts                    the models as read here, their relations checked at start-up
 *   codecs.ts                    each Prisma scalar type: read, decoded, compared, sent
 *   shape.ts                     the shape of find arguments, the key of a compiled read
 *   compile.ts                   find arguments to a statement (untranslated.ts: what it leaves to Prisma)
 *   sql.ts                       SQL as values, compiled to text and parameters
 *   rows.ts                      rows to Prisma's records
 *   reads.ts                     this file: the compiled reads kept per shape, run, and left to Prisma when untranslated
 */

/** Runs a statement through the driver, rows as arrays of their columns' values (the database's readRows). */
export type RunStatement = (statement: { name: string | undefined; text: string; values: unknown[]; rowMode: 'array' }) => Promise<unknown[][]>;

/** A read compiled once for its model and argument shape. */
interface CompiledShape {
  statement: Statement;
  /** The prepared statement's name, for shapes kept (a statement without a hole). */
  name: string | undefined;
  decode: RowDecoder;
  /** The column of a piggyback's value: after the selection's. */
  piggybackIndex: number;
  backwards: boolean;
}

/**
 * Shapes compiled and kept, and statements named (prepared once per connection), for the first ones
 * seen; later ones are compiled per read and sent unnamed, so what is kept stays bounded whatever
 * clients send.
 */
const maxKeptShapes = 500;
const maxNamedStatements = 500;

const statementName = (text: string): string => `direct_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;

/**
 * The direct reads over `prisma`, the client openDatabase made (never an extended one): a read given
 * another client's delegate (a `$extends` client, a transaction's) goes to that delegate unchanged,
 * so an extension's rules are never read past. The model map's relations are checked here, at
 * start-up: a shape the reads cannot join throws RefusedRelation.
 */
export function createSqlReads(prisma: PrismaClient, run: RunStatement, map: ModelMap = modelMap): DirectReads {
  const models = readableModels(map);
  const delegates = new Map([...models.keys()].map((name) => [name, (prisma as unknown as Record<string, unknown>)[`${name[0]!.toLowerCase()}${name.slice(1)}`]]));
  const shapes = new Map<string, CompiledShape | Untranslated>();
  const names = new Map<string, string>();

  function compileShape(modelName: string, args: Record<string, unknown>, withPiggyback: boolean, kept: boolean): CompiledShape | Untranslated {
    try {
      const model = models.get(modelName);
      if (!model) return new Untranslated();
      const read = compileRead(models, model, shapeOf(args, true).template!, withPiggyback);
      const statement = compile(read.statement);
      return {
        statement,
        name: kept && statement.text !== undefined ? statementName(statement.text) : undefined,
        decode: rowDecoderOf(read.selection),
        piggybackIndex: read.selection.scalars.length + read.selection.relations.length,
        backwards: read.backwards,
      };
    } catch (error) {
      if (error instanceof Untranslated) return error;
      throw error;
    }
  }

  /** The records as Prisma gives them, and the piggyback's value; undefined when the read goes to Prisma. */
  async function read(modelName: string, delegate: unknown, args: Record<string, unknown>, piggyback: PiggybackedRead | undefined) {
    if (delegates.get(modelName) !== delegate) return undefined;
    let shape: ReturnType<typeof shapeOf>;
    try {
      shape = shapeOf(args, false);
    } catch (error) {
      if (error instanceof Untranslated) return undefined;
      throw error;
    }
    const key = `${modelName}${piggyback ? '+' : ' '}${shape.key}`;
    let compiled = shapes.get(key);
    if (compiled === undefined) {
      const kept = shapes.size < maxKeptShapes;
      compiled = compileShape(modelName, args, piggyback !== undefined, kept);
      if (kept) shapes.set(key, compiled);
    }
    if (compiled instanceof Untranslated) return undefined;
    fastPathUses['direct-reads']++;
    const { statement } = compiled;
    let rows: unknown[][];
    if (piggyback) {
      const { text, values } = statement.withWritten(shape.values, (parameter) => piggyback.column(parameter));
      rows = await run({ name: nameOf(text), text, values, rowMode: 'array' });
    } else {
      rows = await run({ name: compiled.name, text: statement.text!, values: statement.values(shape.values), rowMode: 'array' });
    }
    const piggybackedValue = piggyback ? rows.find((row) => row[compiled.piggybackIndex] !== null)?.[compiled.piggybackIndex] : undefined;
    const records = rows.map(compiled.decode);
    return { records: compiled.backwards ? records.reverse() : records, piggybackedValue };
  }

  function nameOf(text: string): string | undefined {
    let name = names.get(text);
    if (name === undefined && names.size < maxNamedStatements) {
      name = statementName(text);
      names.set(text, name);
    }
    return name;
  }

  return {
    async findMany(delegate, model, args, piggyback) {
      let answer: Awaited<ReturnType<typeof read>>;
      try {
        answer = await read(model, delegate, args as Record<string, unknown>, piggyback);
      } catch (error) {
        piggyback?.fail(error);
        throw error;
      }
      piggyback?.receive(answer?.piggybackedValue);
      return (answer?.records ?? (await delegate.findMany(args))) as never;
    },
    async findUnique(delegate, model, args) {
      const answer = await read(model, delegate, { ...(args as Record<string, unknown>), take: 1 }, undefined);
      if (answer === undefined) return delegate.findUnique(args);
      return (answer.records[0] ?? null) as never;
    },
  };
}
