import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * A fingerprint of everything directory responses are made of, in one primary-key lookup: the
 * counter that triggers bump on every write to a directory table (migration directory_version),
 * plus the next event start after `now`, because passing it moves attractions' next_starts_at.
 * Equal fingerprints mean equal responses for equal requests.
 */
export async function directoryDataVersion(prisma: PrismaClient, now: Date): Promise<string> {
  const [row] = await prisma.$queryRaw<{ version: bigint | null; next_start: Date | null }[]>`
    SELECT (SELECT version FROM directory_version WHERE id = 1) AS version,
           (SELECT min(starts_at) FROM events WHERE starts_at > ${now}) AS next_start`;
  return `${row?.version ?? 'none'}.${row?.next_start?.getTime() ?? 'none'}`;
}
