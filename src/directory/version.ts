import type { ReadRows } from '../db/connection.js';

const directoryVersionRead = {
  name: 'hallowgate_directory_version',
  // Text on both drivers: only equality of the data version matters. Timestamps are stored as UTC.
  text: `SELECT (SELECT version::text FROM directory_version WHERE id = 1) AS version,
                (SELECT min(starts_at)::text FROM events WHERE starts_at > ($1::timestamptz AT TIME ZONE 'UTC')) AS next_start`,
};

/**
 * A data version of everything directory responses are made of, in one primary-key lookup: the
 * counter that triggers bump on every write to a directory table (migration directory_version),
 * plus the next event start after `now`, because passing it moves attractions' next_starts_at.
 * Equal data versions mean equal responses for equal requests.
 */
export async function directoryDataVersion(readRows: ReadRows, now: Date): Promise<string> {
  const [row] = await readRows<{ version: string | null; next_start: string | null }>({ ...directoryVersionRead, values: [now.toISOString()] });
  return `${row?.version ?? 'none'}.${row?.next_start ?? 'none'}`;
}
