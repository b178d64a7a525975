/**
 * The physical limit of the race (bench/race.ts): a bare node:http + pg server that runs the very
 * statement our read sends (recorded on the wire by bench/statement-recorder.ts, values and all) and
 * writes its rows, in two ways, for each statement it is given under a key (a case: `a`, `c-rest`):
 *   GET /<key>        the rows as pg parses them, written with JSON.stringify;
 *   GET /<key>/json   PostgreSQL aggregates the rows into JSON (json_agg) and Node writes its text.
 * No routing, authentication, validation or GraphQL: what is left is the statement, the driver and
 * the socket, which any server answering the same read pays for.
 *
 * Forked by the race with `<database url> <{ key: RecordedStatement } as JSON>`; it sends the URLs of
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

async function serve(databaseUrl: string, statements: Record<string, RecordedStatement>) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  let sent = 0;
  const answers = new Map<string, () => Promise<string>>();
  for (const [key, { text, values }] of Object.entries(statements)) {
    // Named, so that each connection prepares them once, as it does our read's statement.
    const rows = { name: `limit_${key}`, text, values };
    const aggregated = { name: `limit_${key}_json`, text: `SELECT coalesce(json_agg(read), '[]')::text FROM (${text}) AS read`, values, rowMode: 'array' as const };
    answers.set(`/${key}`, async () => {
      sent++;
      return JSON.stringify((await pool.query(rows)).rows);
    });
    answers.set(`/${key}/json`, async () => {
      sent++;
      return (await pool.query<[string]>(aggregated)).rows[0]![0];
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
    answers: Object.fromEntries(Object.keys(statements).map((key) => [key, { stringify: `${url}/${key}`, postgresJson: `${url}/${key}/json` }])),
  };
  process.send!(fixture);
  answerCounters(() => sent);
  closeWhenParentLeaves({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) }, { close: () => pool.end() });
}

const [databaseUrl, statements] = process.argv.slice(2);
if (databaseUrl && statements) await serve(databaseUrl, JSON.parse(statements) as Record<string, RecordedStatement>);
