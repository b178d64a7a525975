import { LRUCache } from 'lru-cache';

/**
 * Answers already computed, keyed by whatever makes them equal (data fingerprint and request),
 * within a budget of characters; the least recently used go first.
 */
export class KeptAnswers<Answer extends object> {
  private readonly answers: LRUCache<string, Answer>;

  constructor(budget: number) {
    // One large answer must not push out everything else: an answer over 1/64 of the budget is not kept.
    this.answers = new LRUCache<string, Answer>({ maxSize: budget, maxEntrySize: Math.max(1, Math.floor(budget / 64)) });
  }

  get(key: string): Answer | undefined {
    return this.answers.get(key);
  }

  /** `size` is the answer's length in characters, as the budget counts them (callers have it at hand). */
  set(key: string, answer: Answer, size: number) {
    // lru-cache counts sizes from 1.
    this.answers.set(key, answer, { size: Math.max(1, size) });
  }
}
