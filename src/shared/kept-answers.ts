/**
 * Answers already computed, keyed by whatever makes them equal (data fingerprint and request),
 * within a budget of characters; the least recently used go first.
 */
export class KeptAnswers<Answer> {
  private readonly entries = new Map<string, { answer: Answer; size: number }>();
  private size = 0;

  constructor(private readonly budget: number) {}

  get(key: string): Answer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-inserting moves the entry to the young end of the Map's insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.answer;
  }

  /** `size` is the answer's length in characters, as the budget counts them. */
  set(key: string, answer: Answer, size: number) {
    // One large answer must not push out everything else.
    if (size > this.budget / 64) return;
    this.remove(key);
    this.entries.set(key, { answer, size });
    this.size += size;
    while (this.size > this.budget) this.remove(this.entries.keys().next().value!);
  }

  private remove(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= entry.size;
  }
}
