import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { camelCaseOf, snakeCased, snakeCaseOf, snakeCasePathOf } from '../../src/shared/naming.js';
import { projectPath } from '../../src/shared/project-root.js';

describe('the snake/camel mapping', () => {
  it('names a GraphQL field on the wire and back', () => {
    expect(snakeCaseOf('startTime')).toBe('start_time');
    expect(snakeCaseOf('averageLatencyMs')).toBe('average_latency_ms');
    expect(camelCaseOf('start_time')).toBe('startTime');
    expect(camelCaseOf('party_size_2')).toBe('partySize2');
    expect(snakeCasePathOf('customer.emailAddress.0')).toBe('customer.email_address.0');
  });

  it('writes an object with snake_case keys at every depth, in the same order', () => {
    const written = snakeCased({ startTime: 't', partySize: 2, openingHours: [{ weekDay: 1 }], customer: { emailAddress: 'a@b.c' }, endTime: null });
    expect(JSON.stringify(written)).toBe('{"start_time":"t","party_size":2,"opening_hours":[{"week_day":1}],"customer":{"email_address":"a@b.c"},"end_time":null}');
  });
});

/** Each scalar or enum field of each model in prisma/schema.prisma, with the column it is stored in. */
function prismaColumns(): { field: string; column: string }[] {
  const schema = readFileSync(projectPath('prisma/schema.prisma'), 'utf8');
  const models = [...schema.matchAll(/^model (\w+) \{([^}]*)\}/gm)];
  const modelNames = new Set(models.map((model) => model[1]!));
  return models.flatMap(([, model, body]) =>
    body!
      .split('\n')
      .map((line) => /^\s+(\w+)\s+(\w+)(\[\])?\??(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null && !modelNames.has(match[2]!))
      .map(([, field, , , attributes]) => ({ field: `${model}.${field}`, column: /@map\("([^"]+)"\)/.exec(attributes!)?.[1] ?? field! })),
  );
}

describe('the database columns', () => {
  it('are the snake_case names of the Prisma fields, as the mapping writes them', () => {
    const columns = prismaColumns();
    expect(columns.length).toBeGreaterThan(50);
    expect(columns.filter(({ field, column }) => column !== snakeCaseOf(field.split('.')[1]!))).toEqual([]);
  });
});
