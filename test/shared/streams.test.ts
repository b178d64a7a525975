import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { endableStream } from '../../src/shared/streams.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function* endless(): AsyncGenerator<{ payload: number[] }> {
  for (;;) yield { payload: new Array<number>(1_000).fill(7) };
}

describe('endableStream', () => {
  it('keeps nothing of what it has passed on: a subscription open for days holds no past events', async () => {
    const { stream, end } = endableStream(endless());
    const passed: WeakRef<object>[] = [];
    for (let count = 0; count < 100; count++) passed.push(new WeakRef((await stream.next()).value as object));
    // Twice, with a turn of the event loop between: promise jobs still queued hold their values.
    for (let round = 0; round < 2; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
    }
    // At most the last value, which the source generator may still hold.
    expect(passed.filter((value) => value.deref() !== undefined).length).toBeLessThanOrEqual(1);
    end();
  });

  it('answers a next() waiting on an idle source done when ended, and runs onEnd once', async () => {
    let ends = 0;
    const idle: AsyncIterable<number> = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>(() => undefined) }) };
    const { stream, end } = endableStream(idle, () => ends++);
    const waiting = stream.next();
    end();
    end();
    await expect(waiting).resolves.toEqual({ done: true, value: undefined });
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
    expect(ends).toBe(1);
  });

  it('passes values and the source’s failure on, and ends once however it ends', async () => {
    let ends = 0;
    async function* failing() {
      yield 1;
      throw new Error('source failed');
    }
    const { stream } = endableStream(failing(), () => ends++);
    await expect(stream.next()).resolves.toEqual({ done: false, value: 1 });
    await expect(stream.next()).rejects.toThrow('source failed');
    await expect(stream.next()).resolves.toEqual({ done: true, value: undefined });
    await stream.return?.();
    expect(ends).toBe(1);

    let returned = 0;
    const counted = endableStream(endless(), () => returned++);
    await counted.stream.next();
    await counted.stream.return?.();
    await expect(counted.stream.next()).resolves.toEqual({ done: true, value: undefined });
    expect(returned).toBe(1);
  });
});
