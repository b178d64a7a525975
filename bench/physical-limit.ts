/**
 * The physical limit of a read (bench/race.ts, bench/national.ts): a bare node:http + pg server that
 * runs the very statements our read sends (recorded on the wire by bench/statement-recorder.ts,
 * values and all), one after the other as the read does, and writes their rows, in two ways, for
 * each read it is given under a key (a case: `a`, `c-rest`, `near-me`):
 *   GET /<key>        the rows as pg parses them, written with JSON.stringify (one array per statement
 *                     when there are several);
 *   GET /<key>/json   PostgreSQL aggregates the rows into JSON (json_agg) and Node writes its text.
 * No routing, authentication, validation or GraphQL: what is left is the statements, the driver and
 * the socket, which any server answering the same read pays for.
 *
 * Forked with `<database url> <{ key: RecordedStatement[] } as JSON>`; it sends the URLs of
 * its answers once listening, then answers every message with its statement count and CPU time, as
 * the other servers of the race do.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { RecordedStatement } from './statement-recorder.js';
import { answerCounters, closeWhenParentLeaves } from './support.js';

/** What the race needs of this server: where it answers each statement's key, both ways. */
export interface LimitFixture {
  answers: Record<string, { stringify: string; postgresJson: string }>;
}

async function serve(databaseUrl: string, reads: Record<string, RecordedStatement[]>) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  let sent = 0;
  const answers = new Map<string, () => Promise<string>>();
  for (const [key, statements] of Object.entries(reads)) {
    // Named, so that each connection prepares them once, as it does our read's statements.
    const rows = statements.map(({ text, values }, index) => ({ name: `limit_${key}_${index}`, text, values }));
    const aggregated = statements.map(({ text, values }, index) => ({
      name: `limit_${key}_${index}_json`,
      text: `SELECT coalesce(json_agg(read), '[]')::text FROM (${text}) AS read`,
      values,
      rowMode: 'array' as const,
    }));
    const single = statements.length === 1;
    answers.set(`/${key}`, async () => {
      const answered: unknown[] = [];
      for (const statement of rows) {
        sent++;
        answered.push((await pool.query(statement)).rows);
      }
      return JSON.stringify(single ? answered[0] : answered);
    });
    answers.set(`/${key}/json`, async () => {
      const answered: string[] = [];
      for (const statement of aggregated) {
        sent++;
        answered.push((await pool.query<[string]>(statement)).rows[0]![0]);
      }
      return single ? answered[0]! : `[${answered.join(',')}]`;
    });
  }
  const server = createServer((request, response) => {
    const answer = answers.get(request.url!);
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    answer().then(
      (body) => response.writeHead(200, { 'content-type': 'application/json' }).end(body),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fixture: LimitFixture = {
    answers: Object.fromEntries(Object.keys(reads).map((key) => [key, { stringify: `${url}/${key}`, postgresJson: `${url}/${key}/json` }])),
  };
  process.send!(fixture);
  answerCounters(() => sent);
  closeWhenParentLeaves({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) }, { close: () => pool.end() });
}

const [databaseUrl, reads] = process.argv.slice(2);
if (databaseUrl && reads) await serve(databaseUrl, JSON.parse(reads) as Record<string, RecordedStatement[]>);
