import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse, type ExecutionArgs } from 'graphql';
import { describe, expect, it } from 'vitest';
import { useCompiledExecution } from '../../src/graphql/compiled-execution.js';
import { schema } from '../../src/graphql/schema.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function heapAfterCollecting(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

describe('compiled execution', () => {
  it('remembers plans for the operations a document has, not for every name a client sends', () => {
    const onExecute = useCompiledExecution().onExecute as (payload: { args: ExecutionArgs; setExecuteFn(fn: unknown): void }) => void;
    const document = parse('query Known { __typename }');
    let compiled = 0;
    const run = (operationName: string) => onExecute({ args: { schema, document, operationName } as ExecutionArgs, setExecuteFn: () => compiled++ });

    run('Known');
    expect(compiled).toBe(1);
    const before = heapAfterCollecting();
    // Names the document lacks: graphql-js answers each with an error; none may stay behind.
    for (let index = 0; index < 300_000; index++) run(`Unknown${index}_${'x'.repeat(40)}`);
    const grown = heapAfterCollecting() - before;
    expect(compiled).toBe(1);
    // Kept, they took ~80 MB; the document stays alive (as in Yoga's parse cache) throughout.
    expect(grown).toBeLessThan(15_000_000);
    expect(document.definitions).toHaveLength(1);
  });
});
