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
  let answerDone!: (result: IteratorReturnResult<undefined>) => void;
  // A source waiting for its next value (an idle subscription) cannot be interrupted, only raced.
  const ended = new Promise<IteratorReturnResult<undefined>>((resolve) => (answerDone = resolve));

  const finish = (): boolean => {
    if (finished) return false;
    finished = true;
    answerDone(done);
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
    async next() {
      if (finished) return done;
      try {
        const result = await Promise.race([iterator.next(), ended]);
        if (result.done) finish();
        return result;
      } catch (error) {
        finish();
        throw error;
      }
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
