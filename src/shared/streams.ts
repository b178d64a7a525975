export interface EndableStream<T> {
  stream: AsyncIterableIterator<T>;
  /** Ends the stream now: a pending `next()` answers done at once, and the source is returned. */
  end(): void;
}

/**
 * `source` with a way to end it from outside, and `onEnd` run exactly once however it ends: it runs
 * out, it fails, its consumer returns it, or `end()` is called.
 */
export function endableStream<T>(source: AsyncIterable<T>, onEnd: () => void = () => undefined): EndableStream<T> {
  const iterator = source[Symbol.asyncIterator]();
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let finished = false;
  // A source waiting for its next value (an idle subscription) cannot be interrupted: the next()
  // waiting on it is answered done instead. One resolver per waiting next(), not a race against a
  // promise that lives as long as the stream (each race would stay attached to it until the end).
  const waiting = new Set<(result: IteratorReturnResult<undefined>) => void>();

  const finish = (): boolean => {
    if (finished) return false;
    finished = true;
    for (const answerDone of waiting) answerDone(done);
    waiting.clear();
    onEnd();
    return true;
  };
  const end = () => {
    // An async generator queues return() behind a pending next(), so it is not awaited.
    if (finish()) Promise.resolve(iterator.return?.()).catch(() => undefined);
  };

  const stream: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return stream;
    },
    next() {
      if (finished) return Promise.resolve(done);
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiting.add(resolve);
        iterator.next().then(
          (result) => {
            waiting.delete(resolve);
            if (result.done) finish();
            resolve(result);
          },
          (error: unknown) => {
            waiting.delete(resolve);
            finish();
            reject(error);
          },
        );
      });
    },
    async return() {
      end();
      return done;
    },
    async throw(error: unknown) {
      end();
      throw error;
    },
  };
  return { stream, end };
}

/** Items a stream sends between two turns of the event loop. */
export const itemsPerTurn = 64;

/**
 * `items`, giving the event loop a turn after every itemsPerTurn of them: a long burst (a month of
 * slots sent as a stream's first state) would otherwise reach its consumer through promise callbacks
 * alone, which let no other request, timer or socket in until it ends.
 */
export async function* takingTurns<T>(items: Iterable<T>): AsyncGenerator<T, void, undefined> {
  let sent = 0;
  for (const item of items) {
    yield item;
    if (++sent % itemsPerTurn === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
