/**
 * The cost of tracing (issue 30): req/s of the race's reads (bench/race.ts: (a) 50 events of a city,
 * (b) one event, (c) one account's bookings), executed every time (never from the response cache),
 * over GraphQL and REST, on four servers of ours that differ only in their OTEL_* variables:
 * - off: no OTLP endpoint, as every server without one runs;
 * - 0 %: an endpoint and OTEL_TRACES_SAMPLER=always_off: nothing is sampled, so this is what tracing
 *   costs each request it leaves out (an unrecorded server span, its `traceresponse`);
 * - 10 %: an endpoint and the default sampler (parent-based, 10 % of the traces a request starts);
 * - 100 %: an endpoint and OTEL_TRACES_SAMPLER=always_on.
 *
 *   npm run build && npx tsx bench/tracing.ts   # servers run build/ as npm start does; BENCH_RACE_SOURCE=1 runs src/
 *   BENCH_TRACING_SECONDS=2 npx tsx bench/tracing.ts   # a quick look: 2 s per round
 *
 * The traced servers export over OTLP/HTTP (protobuf, the default) to a receiver in this process
 * that answers 200 and keeps nothing but the number of spans each server sent, so that the table
 * shows tracing was on and sampled as set. The servers are the race's (bench/race.ts, seeded as the
 * race seeds, on a fresh PostgreSQL database at BENCH_POSTGRES_URL, else
 * postgresql://postgres@127.0.0.1:5432/postgres, dropped afterwards), each in a child process with a
 * pool of 10, so autocannon (20 connections) does not share their event loops.
 *
 * Each read takes the servers in turn over several rounds (BENCH_TRACING_ROUNDS, default 3), after
 * a warm-up each, each round starting with the next server, so that other work on the shared machine
 * lands on all of them alike: req/s is the median over the rounds, and each x/off the median of the
 * ratios taken within each round. Server CPU ms/request is the child's CPU time over the requests it
 * answered in the rounds. BENCH_TRACING_CASES and BENCH_TRACING_READS pick reads, for a profile or a
 * quick look (e.g. `BENCH_TRACING_CASES="(b)" BENCH_TRACING_READS=GraphQL`); BENCH_TRACING_SERVERS
 * picks the servers compared with off (e.g. `10` or `0,10`): fewer servers, more rounds in the time.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { caseSpecs, executedGraphqlLoad, median, refuseStaleBuild, restRenderLoad, stop, type Fixture } from './race.js';
import { autocannon, benchServerOptions, cpuMicros, forkServer, reachable, serverCounters, statusSummary, withScratchDatabase, type AutocannonResult } from './support.js';

const connections = 20;
/** Rounds per read (BENCH_TRACING_ROUNDS): more rounds, a steadier median. */
const rounds = Number(process.env['BENCH_TRACING_ROUNDS'] ?? 3);
if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error(`BENCH_TRACING_ROUNDS must be a whole number above 0; it is "${process.env['BENCH_TRACING_ROUNDS']}"`);
/** Seconds of load per server and read in each round (BENCH_TRACING_SECONDS, for a quick look). */
const secondsPerRound = Number(process.env['BENCH_TRACING_SECONDS'] ?? 8);
if (!(secondsPerRound > 0)) throw new Error(`BENCH_TRACING_SECONDS must be a number of seconds above 0; it is "${process.env['BENCH_TRACING_SECONDS']}"`);
/** BENCH_TRACING_CASES=<parts of cases' names, comma-separated> (e.g. "(b)"), BENCH_TRACING_READS=GraphQL or REST: only those reads. */
const nameParts = (variable: string) => process.env[variable]?.split(',');
/** BENCH_TRACING_SERVERS=<sampled percentages, comma-separated> (e.g. "10"): only those servers beside off. */
const chosenServers = nameParts('BENCH_TRACING_SERVERS')?.map((part) => part.trim().replace(/\s*%$/, ''));
const warmUpSeconds = 2;

// ---------------------------------------------------------------- the receiver

/** The length-delimited fields numbered `field` of a protobuf message (the wire format, read as is). */
function* lengthDelimited(message: Buffer, field: number): Generator<Buffer> {
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = message[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  while (at < message.length) {
    const key = varint();
    const wireType = key & 7;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (key >>> 3 === field) yield message.subarray(at, at + length);
      at += length;
    } else throw new Error(`an OTLP export holds protobuf wire type ${wireType}, which it never uses`);
  }
}

/** The spans of an OTLP ExportTraceServiceRequest: resource_spans (1) → scope_spans (2) → spans (2). */
function spansIn(request: Buffer): number {
  let spans = 0;
  for (const resourceSpans of lengthDelimited(request, 1)) {
    for (const scopeSpans of lengthDelimited(resourceSpans, 2)) spans += [...lengthDelimited(scopeSpans, 2)].length;
  }
  return spans;
}

/** An OTLP/HTTP receiver that accepts every export and discards it, counting its spans by the path it was sent to. */
async function startSpanCounter() {
  const spansByPath = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      spansByPath.set(path, (spansByPath.get(path) ?? 0) + spansIn(Buffer.concat(chunks)));
      // An empty ExportTraceServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The spans received at `base`'s /v1/traces, where an exporter given `base` as its endpoint sends them. */
    spansSentTo: (base: string) => spansByPath.get(`${new URL(base).pathname}/v1/traces`) ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------- the servers and the load

interface Configuration {
  name: 'off' | '0 %' | '10 %' | '100 %';
  /** The OTEL_* variables its server starts with. */
  variables: Record<string, string>;
}

/** The servers' settings: one endpoint path each, so the receiver tells their spans apart; off first, the reference. */
function configurations(receiverUrl: string): Configuration[] {
  const all: Configuration[] = [
    { name: 'off', variables: {} },
    { name: '0 %', variables: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiverUrl}/sampled-0`, OTEL_TRACES_SAMPLER: 'always_off' } },
    { name: '10 %', variables: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiverUrl}/sampled-10` } },
    { name: '100 %', variables: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiverUrl}/sampled-100`, OTEL_TRACES_SAMPLER: 'always_on' } },
  ];
  if (!chosenServers) return all;
  const chosenNames = chosenServers.map((part) => `${part} %`);
  const unknown = chosenServers.filter((_part, index) => !all.some(({ name }) => name === chosenNames[index]));
  if (unknown.length) throw new Error(`BENCH_TRACING_SERVERS names servers by their sampled percentage (0, 10, 100); "${unknown.join(', ')}" is none`);
  return all.filter(({ name }) => name === 'off' || chosenNames.includes(name));
}

interface Read {
  case: string;
  surface: 'GraphQL (execute)' | 'REST (render)';
  /** autocannon options for the read against the server at `url`. */
  options: (url: string) => Record<string, unknown>;
}

function readsOf(fixture: Fixture): Read[] {
  const auth = { authorization: `Bearer ${fixture.key}` };
  const [cases, surfaces] = [nameParts('BENCH_TRACING_CASES'), nameParts('BENCH_TRACING_READS')];
  return caseSpecs(fixture)
    .flatMap((spec): Read[] => [
      { case: spec.name, surface: 'GraphQL (execute)', options: (url) => executedGraphqlLoad(url, spec.graphql.query, spec.graphql.variables, auth) },
      { case: spec.name, surface: 'REST (render)', options: (url) => restRenderLoad(url, spec.rest.path, fixture.key) },
    ])
    .filter((read) => (!cases || cases.some((part) => read.case.includes(part))) && (!surfaces || surfaces.some((part) => read.surface.includes(part))));
}

/** A round's load (or a warm-up) that got an answer other than 200 is no measure of the read: the bench stops. */
function refuseFailures(result: AutocannonResult, what: string): AutocannonResult {
  if (result.errors || result.non2xx) throw new Error(`${what}: ${result.errors} errors, answers ${statusSummary(result)}`);
  return result;
}

const ratio = (values: number[]) => `${median(values).toFixed(3)}×`;

async function measure(databaseUrl: string, receiver: Awaited<ReturnType<typeof startSpanCounter>>) {
  const raceServer = new URL('./race.ts', import.meta.url).href;
  const settings = configurations(receiver.url);
  const children: ChildProcess[] = [];
  /** Requests each server answered, warm-ups included: what its spans are counted against. */
  const answered = settings.map(() => 0);
  const rows = [];
  try {
    // A server of its own seeds the database and leaves; the measured ones all join it, alike. (The
    // one that seeded ran faster than the ones that joined, tracing or not: it measured as off did.)
    const seeder = await forkServer<Fixture>(raceServer, ['serve', databaseUrl], benchServerOptions());
    await stop(seeder.child);
    const reads = readsOf(seeder.fixture);
    if (reads.length === 0) throw new Error('BENCH_TRACING_CASES and BENCH_TRACING_READS leave no read to measure');
    const servers: { child: ChildProcess; fixture: Fixture }[] = [];
    for (const { variables } of settings) {
      const joined = await forkServer<Fixture>(raceServer, ['join', databaseUrl, JSON.stringify(seeder.fixture)], benchServerOptions(variables));
      children.push(joined.child);
      servers.push(joined);
    }
    const run = async (index: number, read: Read, seconds: number) => {
      const what = `${read.case}, ${read.surface}, tracing ${settings[index]!.name}`;
      const result = refuseFailures(await autocannon({ connections, duration: seconds, ...read.options(servers[index]!.fixture.url) }), what);
      answered[index]! += result.requests.total;
      return result;
    };
    for (const read of reads) {
      for (const index of servers.keys()) await run(index, read, warmUpSeconds);
      const measured = servers.map(() => ({ rates: [] as number[], ratios: [] as number[], p99s: [] as number[], requests: 0, cpuMicros: 0 }));
      for (let round = 0; round < rounds; round++) {
        // Each round starts with the next server, so that none always follows the same one.
        const order = servers.map((_server, position) => (position + round) % servers.length);
        for (const index of order) {
          const { child } = servers[index]!;
          const before = await serverCounters(child);
          const result = await run(index, read, secondsPerRound);
          const after = await serverCounters(child);
          const into = measured[index]!;
          into.rates.push(result.requests.average);
          into.p99s.push(result.latency.p99);
          into.requests += result.requests.total;
          into.cpuMicros += cpuMicros(after.cpu) - cpuMicros(before.cpu);
        }
        for (const into of measured) into.ratios.push(into.rates[round]! / measured[0]!.rates[round]!);
      }
      const figures = measured.map((into) => ({
        rate: Math.round(median(into.rates)),
        ratio: ratio(into.ratios),
        p99: median(into.p99s),
        cpu: (into.cpuMicros / into.requests / 1000).toFixed(3),
      }));
      const names = settings.map(({ name }) => name);
      rows.push({
        case: read.case,
        read: read.surface,
        ...Object.fromEntries(figures.map((figure, index) => [`${names[index]} req/s`, figure.rate])),
        ...Object.fromEntries(figures.slice(1).map((figure, index) => [`${names[index + 1]}/off`, figure.ratio])),
        [`p99 ms ${names.join(' / ')}`]: figures.map((figure) => figure.p99).join(' / '),
        [`server CPU ms/req ${names.join(' / ')}`]: figures.map((figure) => figure.cpu).join(' / '),
      });
    }
  } finally {
    // Each server sends the spans it still holds before it exits.
    await Promise.all(children.map(stop));
  }
  const spans = settings.map(({ name, variables }, index) => {
    const received = variables['OTEL_EXPORTER_OTLP_ENDPOINT'] ? receiver.spansSentTo(variables['OTEL_EXPORTER_OTLP_ENDPOINT']) : 0;
    return { tracing: name, requests: answered[index]!, spans: received, 'spans/request': Number((received / answered[index]!).toFixed(3)) };
  });
  return { rows, spans };
}

async function main() {
  const inherited = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'));
  if (inherited.length) throw new Error(`the bench sets each server's OTEL_* variables itself; unset ${inherited.join(', ')}`);
  if (!process.env['BENCH_RACE_SOURCE']) refuseStaleBuild();
  const postgresUrl = process.env['BENCH_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(postgresUrl, 5432))) throw new Error(`the bench needs PostgreSQL; nothing listens at ${postgresUrl}`);
  const loadBefore = loadavg()[0]!;
  const receiver = await startSpanCounter();
  const { rows, spans } = await withScratchDatabase(postgresUrl, 'hallowgate_bench_tracing', (url) => measure(url, receiver)).finally(() => receiver.close());
  const loadAfter = loadavg()[0]!;
  console.log(
    `\nThe cost of tracing: autocannon, ${connections} connections, ${rounds} rounds of ${secondsPerRound} s per server and read (${spans.map(({ tracing }) => tracing).join(', ')} in turn, each round starting with the next), after ${warmUpSeconds} s warm-up each; every server pools 10`,
  );
  console.log('req/s and p99 are medians over the rounds; each x/off is the median of the ratios within each round');
  console.log(
    `${cpus().length} cores shared by autocannon, the servers and PostgreSQL; Node ${process.version}; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  );
  console.table(rows);
  console.log('Spans the receiver got from each server, against the requests it answered (warm-ups included):');
  console.table(spans);
  console.log(JSON.stringify({ bench: 'tracing', node: process.version, cores: cpus().length, loadBefore, loadAfter, rounds, secondsPerRound, rows, spans }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
