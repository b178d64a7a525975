/**
 * Whether a parsed JSON value nests objects and arrays more than `limit` levels deep, found without
 * recursion, so a value of any depth is refused before anything that recurses (serializers, walkers,
 * hashing) meets it.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; level: number }> = [{ value, level: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.level > limit) return true;
    for (const child of Object.values(next.value)) pending.push({ value: child, level: next.level + 1 });
  }
  return false;
}

/** Far more than any body or variables of this API need (they nest three or four levels). */
export const maxJsonNesting = 32;
