import { Prisma } from '../../generated/prisma/client.js';
import { untranslated } from './untranslated.js';

/** The kind of a value given in a filter, cursor or page: what decides how it is compared and sent. */
export type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'bigint' | 'date' | 'decimal' | 'strings';

/** A value of the arguments, as the compiler sees it: its place among the values of a read, and its kind. */
export class Slot {
  constructor(
    readonly index: number,
    readonly kind: ValueKind,
  ) {}
}

/** take or skip in a template: its sign decides the statement, its size is a value. */
export class Count {
  constructor(
    readonly sign: 'negative' | 'zero' | 'positive',
    readonly size: Slot | undefined,
  ) {}
}

/**
 * The shape of Prisma find arguments: everything the statement depends on (fields, operators, `null`,
 * sort directions, selections, a page's direction) as a key, and the values it does not depend on
 * in order. Reads of one shape share one compiled statement; with `template`, the arguments with each
 * value replaced by its Slot, which the compiler reads.
 */
export interface Shape {
  key: string;
  values: unknown[];
  template: Record<string, unknown> | undefined;
}

function kindOf(value: unknown): ValueKind | undefined {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'bigint':
      return 'bigint';
    default:
      return value instanceof Date ? 'date' : value instanceof Prisma.Decimal ? 'decimal' : undefined;
  }
}

/** A field or operator name in a key: written as it is when it cannot be mistaken for the key's own signs. */
const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;

class ShapeWalk {
  key = '';
  values: unknown[] = [];
  constructor(private readonly withTemplate: boolean) {}

  name(name: string): void {
    this.key += plainName.test(name) ? name : JSON.stringify(name);
  }

  /** Written into the key as it is: selections, sort orders, anything the compiler does not translate. */
  literal(value: unknown): unknown {
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch {
      // A bigint, or a cycle: nothing the compiler translates.
      return untranslated();
    }
    this.key += `=${text};`;
    return value;
  }

  slot(value: unknown, kind: ValueKind): Slot | undefined {
    this.key += `?${kind};`;
    this.values.push(value);
    return this.withTemplate ? new Slot(this.values.length - 1, kind) : undefined;
  }

  /** A `where` or `cursor` value: objects and lists by their entries, `null` in the key, every other value a slot. */
  filter(value: unknown): unknown {
    if (value === null) {
      this.key += '=null;';
      return null;
    }
    const kind = kindOf(value);
    if (kind) return this.slot(value, kind);
    if (Array.isArray(value)) {
      this.key += '[';
      const items = value.map((item) => this.filter(item));
      this.key += ']';
      return items;
    }
    if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return untranslated();
    this.key += '{';
    const entries: [string, unknown][] = [];
    for (const name in value) {
      const inner = (value as Record<string, unknown>)[name];
      if (inner === undefined) continue;
      this.name(name);
      // `mode` chooses the comparison: a name, not a value. A list of strings to be `in` is one value,
      // whatever its length, so the pages of a search share one statement.
      if (name === 'mode') entries.push([name, this.literal(inner)]);
      else if (name === 'in' && Array.isArray(inner) && inner.every((item) => typeof item === 'string')) entries.push([name, this.slot(inner, 'strings')]);
      else entries.push([name, this.filter(inner)]);
    }
    this.key += '}';
    return this.withTemplate ? Object.fromEntries(entries) : undefined;
  }

  /** take and skip: their sign, and skip's being 0, decide the statement; their size is a value. */
  count(value: unknown): unknown {
    if (kindOf(value) !== 'integer') return this.literal(value);
    const sign = (value as number) < 0 ? 'negative' : value === 0 ? 'zero' : 'positive';
    this.key += `:${sign};`;
    const size = this.slot(value, 'integer');
    return this.withTemplate ? new Count(sign, size) : undefined;
  }
}

export function shapeOf(args: Record<string, unknown>, template: boolean): Shape {
  const walk = new ShapeWalk(template);
  const entries: [string, unknown][] = [];
  for (const name in args) {
    const value = args[name];
    if (value === undefined) continue;
    walk.name(name);
    if (name === 'where' || name === 'cursor') entries.push([name, walk.filter(value)]);
    else if (name === 'take' || name === 'skip') entries.push([name, walk.count(value)]);
    else entries.push([name, walk.literal(value)]);
  }
  return { key: walk.key, values: walk.values, template: template ? Object.fromEntries(entries) : undefined };
}
