import { LRUCache } from 'lru-cache';

/** Requests asked for once, remembered by key; forgotten all at once when this many. */
const maxAskedOnce = 50_000;

/**
 * Answers already computed, keyed by whatever makes them equal (data fingerprint and request),
 * within a budget of characters; the least recently used go first. `askedBefore` lets a user keep
 * only requests asked for before (GraphQL does): a one-off read (a new page, a new filter) then
 * costs neither the fingerprint read nor room here.
 */
export class KeptAnswers<Answer extends object> {
  private readonly answers: LRUCache<string, Answer>;
  private readonly askedOnce = new Set<string>();

  constructor(budget: number) {
    // One large answer must not push out everything else: an answer over 1/64 of the budget is not kept.
    this.answers = new LRUCache<string, Answer>({ maxSize: budget, maxEntrySize: Math.max(1, Math.floor(budget / 64)) });
  }

  /** Whether the request (its key without the data fingerprints) was asked for before; records it when not. */
  askedBefore(requestKey: string): boolean {
    if (this.askedOnce.has(requestKey)) return true;
    if (this.askedOnce.size >= maxAskedOnce) this.askedOnce.clear();
    this.askedOnce.add(requestKey);
    return false;
  }

  /** askedBefore without recording the request. */
  wasAsked(requestKey: string): boolean {
    return this.askedOnce.has(requestKey);
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
