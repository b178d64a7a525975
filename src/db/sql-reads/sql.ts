/**
 * SQL as values: fragments written with the `sql` template hold text only in their literal parts;
 * names, string constants and parameters are values escaped or numbered when the whole statement is
 * compiled, once, to its text and parameter list. This is the only module that writes SQL text.
 */
export class Sql {
  /** @internal Literal text and the values between it, as the template gave them. */
  constructor(readonly parts: readonly (string | SqlValue)[]) {}
}

/** A quoted name: a table, a column or an alias (`"t0"."start_time"` for several). */
class Identifier {
  constructor(readonly names: readonly string[]) {}
}

/** A string constant written into the text (a json key), not sent as a parameter. */
class Literal {
  constructor(readonly text: string) {}
}

/** A value sent as a parameter: slot `slot` of the values a statement is bound with, as `write` makes it. */
export class Parameter {
  constructor(
    readonly slot: number,
    readonly write: (value: unknown) => unknown,
  ) {}
}

/** Where SQL written by its owner per statement goes (a PiggybackedRead's column); it takes its values through `parameter`. */
class Hole {}

export type WrittenSql = (parameter: (value: unknown) => string) => string;

type SqlValue = Sql | Identifier | Literal | Parameter | Hole;

export function sql(strings: TemplateStringsArray, ...values: SqlValue[]): Sql {
  const parts: (string | SqlValue)[] = [];
  strings.forEach((text, index) => {
    if (text !== '') parts.push(text);
    if (index < values.length) parts.push(values[index]!);
  });
  return new Sql(parts);
}

export const identifier = (...names: string[]): Identifier => new Identifier(names);

export const literal = (text: string): Literal => new Literal(text);

export const hole: Sql = new Sql([new Hole()]);

export const empty: Sql = new Sql([]);

export function join(fragments: readonly Sql[], separator: Sql): Sql {
  return new Sql(fragments.flatMap((fragment, index) => (index === 0 ? [fragment] : [separator, fragment])));
}

const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Standard-conforming strings (PostgreSQL's default since 9.1): only the quote is doubled. */
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A statement compiled once: its text (in pieces around a hole) and where each parameter's value comes from. */
export class Statement {
  /** The text when the statement has no hole. */
  readonly text: string | undefined;

  constructor(
    private readonly pieces: readonly string[],
    private readonly parameters: readonly Parameter[],
  ) {
    this.text = pieces.length === 1 ? pieces[0]! : undefined;
  }

  /** The parameters' values from the slots of one read. */
  values(slots: readonly unknown[]): unknown[] {
    return this.parameters.map((parameter) => parameter.write(slots[parameter.slot]));
  }

  /** The text and values with `written` in the hole; its parameters are numbered after the statement's own. */
  withWritten(slots: readonly unknown[], written: WrittenSql): { text: string; values: unknown[] } {
    const values = this.values(slots);
    const text = `${this.pieces[0]}${written((value) => `$${values.push(value)}`)}${this.pieces[1]}`;
    return { text, values };
  }
}

export function compile(fragment: Sql): Statement {
  const pieces = [''];
  const parameters: Parameter[] = [];
  const numbers = new Map<Parameter, number>();
  const write = (text: string) => (pieces[pieces.length - 1] += text);
  const visit = (part: string | SqlValue): void => {
    if (typeof part === 'string') write(part);
    else if (part instanceof Sql) part.parts.forEach(visit);
    else if (part instanceof Identifier) write(part.names.map(quoteName).join('.'));
    else if (part instanceof Literal) write(quoteLiteral(part.text));
    else if (part instanceof Parameter) {
      // One number per parameter however often the statement uses it.
      let number = numbers.get(part);
      if (number === undefined) {
        number = parameters.push(part);
        numbers.set(part, number);
      }
      write(`$${number}`);
    } else {
      if (pieces.length > 1) throw new Error('a statement has one hole at most');
      pieces.push('');
    }
  };
  visit(fragment);
  return new Statement(pieces, parameters);
}
