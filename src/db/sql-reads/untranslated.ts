/** Arguments the reads do not translate: the read goes to Prisma unchanged, so the answer never depends on which path ran. */
export class Untranslated extends Error {}

export function untranslated(): never {
  throw new Untranslated();
}
