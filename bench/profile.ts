/**
 * Where a server's CPU went under load: self time by package (or by function), over the busiest
 * window of a V8 CPU profile, as shares of the busy (non-idle) time.
 *
 *   BENCH_CPU_PROFILE=prof BENCH_RACE_ONLY="GraphQL events (execute)" npx tsx bench/race.ts
 *   npx tsx bench/profile.ts prof/CPU.<…>.cpuprofile [seconds = 10] [package | function] [from second = the busiest window's]
 *
 * Prints the table, then one JSON line of the same figures.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, secondsArgument = '10', by = 'package', fromArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: npx tsx bench/profile.ts <file.cpuprofile> [seconds] [package | function] [from second]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const idle = (node: ProfileNode) => node.callFrame.functionName === '(idle)';

// Each sample lasts until the next one; its time is when it was taken.
const samples = profile.samples.map((id, index) => ({ node: nodes.get(id)!, micros: profile.timeDeltas[index + 1] ?? 0 }));
let clock = profile.startTime;
const times = profile.timeDeltas.map((delta) => (clock += delta));

// The busiest window of whole seconds: where the load ran, wherever that was in the profile.
const busyPerSecond: number[] = [];
samples.forEach(({ node, micros }, index) => {
  const second = Math.floor((times[index]! - profile.startTime) / 1e6);
  busyPerSecond[second] = (busyPerSecond[second] ?? 0) + (idle(node) ? 0 : micros);
});
const width = Number(secondsArgument);
let from = 0;
let busiest = -1;
for (let second = 0; second + width <= busyPerSecond.length; second++) {
  const busy = busyPerSecond.slice(second, second + width).reduce((sum, value) => sum + (value ?? 0), 0);
  if (busy > busiest) [busiest, from] = [busy, second];
}
// A window given by its first second instead, e.g. to leave out the start-up of a profile of one case.
if (fromArgument !== undefined) from = Number(fromArgument);

function placeOf({ callFrame: { functionName, url, lineNumber } }: ProfileNode): string {
  const where = url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\//, '')
    .replace(`${process.cwd()}/`, '');
  if (by === 'function') return `${functionName || '(anonymous)'} ${where}:${lineNumber}`;
  if (!url) return functionName || '(code without a script, such as graphql-jit compiled operations)';
  if (url.startsWith('node:')) return 'node internals';
  const dependency = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  return dependency ? dependency[1]! : where.split('/').slice(0, 2).join('/');
}

const selfTime = new Map<string, number>();
let busy = 0;
samples.forEach(({ node, micros }, index) => {
  const second = (times[index]! - profile.startTime) / 1e6;
  if (second < from || second >= from + width || idle(node)) return;
  selfTime.set(placeOf(node), (selfTime.get(placeOf(node)) ?? 0) + micros);
  busy += micros;
});
const rows = [...selfTime]
  .sort((a, b) => b[1] - a[1])
  .slice(0, 25)
  .map(([where, micros]) => ({ where, share: `${((micros / busy) * 100).toFixed(1)} %` }));
console.log(`${(busy / 1e6).toFixed(2)} s busy in the ${width} s from second ${from}`);
console.table(rows);
console.log(JSON.stringify({ bench: 'profile', file, from, seconds: width, busySeconds: busy / 1e6, rows }));
