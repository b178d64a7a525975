import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStatementRecorder } from '../../bench/statement-recorder.js';
import { requireService } from '../support/services.js';

const postgresUrl = await requireService('postgres');

describe.skipIf(!postgresUrl)("the race's statement recorder (bench/statement-recorder.ts)", () => {
  let recorder: Awaited<ReturnType<typeof startStatementRecorder>>;
  let client: pg.Client;

  beforeEach(async () => {
    recorder = await startStatementRecorder(postgresUrl!);
    client = new pg.Client({ connectionString: recorder.url });
    await client.connect();
  });

  afterEach(async () => {
    await client.end();
    await recorder.close();
  });

  it('records what each statement ran with, a named one parsed once included, and the recording replays to the same rows', async () => {
    const named = { name: 'recorded_sum', text: 'SELECT $1::int + 1 AS next, $2::text AS nothing, $3::text AS word', values: [41, null, 'héllo'] };
    const first = await client.query(named);
    // The second run of a named statement sends no Parse on this connection: its text comes from the first.
    await client.query(named);
    await client.query('SELECT 2 AS two');
    const recorded = { text: named.text, values: ['41', null, 'héllo'] };
    expect(recorder.take()).toEqual([recorded, recorded, { text: 'SELECT 2 AS two', values: [] }]);
    expect(recorder.take()).toEqual([]);
    expect((await client.query(recorded)).rows).toEqual(first.rows);
  });

  it('refuses a statement bound with a binary value, which it could not replay as text', async () => {
    await client.query({ text: 'SELECT length($1::bytea) AS bytes', values: [Buffer.from([0, 1, 2])] });
    expect(() => recorder.take()).toThrow(/binary value/);
  });
});
