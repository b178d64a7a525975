export interface EndableStream<T> {
  stream: AsyncIterableIterator<T>;
  /**
   * Ends the stream now, the source returned: a pending `next()` answers `last` when given (its
   * consumer learns why it ends), and then every `next()` answers done.
   */
  end(last?: T): void;
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
  const waiting = new Set<(result: IteratorResult<T, undefined>) => void>();
  /** What end() was given to send last, until a next() takes it. */
  let lastToSend: { value: T } | undefined;

  const finish = (last?: { value: T }): boolean => {
    if (finished) return false;
    finished = true;
    lastToSend = last;
    for (const answer of waiting) answer(takeLast());
    waiting.clear();
    onEnd();
    return true;
  };
  const takeLast = (): IteratorResult<T, undefined> => {
    if (!lastToSend) return done;
    const { value } = lastToSend;
    lastToSend = undefined;
    return { done: false, value };
  };
  const end = (last?: T) => {
    // An async generator queues return() behind a pending next(), so it is not awaited.
    if (finish(last === undefined ? undefined : { value: last })) Promise.resolve(iterator.return?.()).catch(() => undefined);
  };

  const stream: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]() {
      return stream;
    },
    next() {
      if (finished) return Promise.resolve(takeLast());
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
