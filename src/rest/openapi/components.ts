import { isDeepStrictEqual } from 'node:util';

/** What the OpenAPI documents are made of: JSON Schema objects, and the named ones a document keeps once under components. */

export type JsonSchema = { [keyword: string]: unknown };

export const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

export function compareText(a: string, b: string) {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedObject<Value>(entries: Iterable<[string, Value]>): Record<string, Value> {
  return Object.fromEntries([...entries].sort(([a], [b]) => compareText(a, b)));
}

/** Shapes with names, each kept once per document; a second, different shape under one name is a naming clash in the operations. */
export class Components {
  readonly schemas = new Map<string, JsonSchema>();
  readonly parameters = new Map<string, JsonSchema>();
  readonly headers = new Map<string, JsonSchema>();
  readonly responses = new Map<string, JsonSchema>();

  schema(name: string, build: () => JsonSchema): JsonSchema {
    const schema = build();
    const known = this.schemas.get(name);
    if (known && !isDeepStrictEqual(known, schema)) throw new Error(`Two shapes would be named ${name} in one OpenAPI document; rename one of the fragments.`);
    this.schemas.set(name, schema);
    return ref('schemas', name);
  }

  add(section: 'parameters' | 'headers' | 'responses', name: string, build: () => JsonSchema): JsonSchema {
    if (!this[section].has(name)) this[section].set(name, build());
    return ref(section, name);
  }
}

export function withNull(schema: JsonSchema): JsonSchema {
  if (typeof schema['type'] === 'string' && !('enum' in schema) && !('const' in schema)) return { ...schema, type: [schema['type'], 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}
