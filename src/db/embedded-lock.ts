import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './config-error.js';

/** Who holds an embedded database: enough to name it, and to tell whether it still runs. */
export interface LockHolder {
  pid: number;
  /** What the process is, e.g. "hallowgate server". */
  role: string;
  startedAt: string;
  /** Tells this hold apart from an earlier one by a process that had the same pid. */
  nonce: string;
}

export class DatabaseInUseError extends ConfigError {
  override name = 'DatabaseInUseError';

  constructor(
    dataDir: string,
    readonly holder: LockHolder,
    whenInUse: string,
  ) {
    super(`the embedded database ${dataDir} is in use by process ${holder.pid} (${holder.role}, started ${holder.startedAt}); ${whenInUse}`);
  }
}

export interface EmbeddedLock {
  release(): void;
}

/** Holds this process has or is taking: it must neither take them over nor share them. */
const heldHere = new Set<string>();

/**
 * Whether the process `pid` has ended though its parent has not reaped it yet (a zombie), read from
 * Linux's /proc. A zombie still answers signal 0, yet will never touch the database again.
 * Elsewhere (no /proc) it answers false, and signal 0 alone decides.
 */
function hasEnded(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "<pid> (<command>) <state> …": the command may hold spaces and parentheses, the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

function isRunning(holder: LockHolder): boolean {
  // Our own pid on a hold that is not ours is an earlier life of this pid (a restarted container).
  if (holder.pid === process.pid) return heldHere.has(holder.nonce);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !hasEnded(holder.pid);
}

function parseHolder(text: string): LockHolder | null {
  try {
    const holder = JSON.parse(text) as Partial<LockHolder> | null;
    return typeof holder?.pid === 'number' && typeof holder.nonce === 'string' ? (holder as LockHolder) : null;
  } catch {
    return null;
  }
}

async function readHolder(path: string): Promise<LockHolder | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const holder = parseHolder(text);
  if (!holder) throw new Error(`the lock file ${path} is unreadable; remove it if no hallowgate process uses the database`);
  return holder;
}

/**
 * Creates the lock file `path` naming `holder`, unless a running process holds it: then answers
 * that holder. The file appears whole (a hard link to a finished draft), so readers never see it
 * half written. A dead holder's file is removed only by whoever claims `<path>.takeover-<its nonce>`
 * (the same way, recursively), so two starters cannot each remove the other's fresh file: one wins.
 */
async function claim(path: string, holder: LockHolder): Promise<LockHolder | null> {
  // Refused before writing even a draft, when the holder is plainly there.
  const present = await readHolder(path);
  if (present && isRunning(present)) return present;
  const draft = `${path}.${holder.nonce}.draft`;
  await writeFile(draft, JSON.stringify(holder));
  try {
    for (;;) {
      try {
        await link(draft, path);
        return null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = await readHolder(path);
      if (!current) continue;
      if (isRunning(current)) return current;
      const takeover = `${path}.takeover-${current.nonce}`;
      const rival = await claim(takeover, holder);
      if (rival) return rival;
      try {
        // A slower starter may come for the same dead hold after another already replaced it.
        if ((await readHolder(path))?.nonce === current.nonce) await unlink(path);
      } finally {
        await unlink(takeover);
      }
    }
  } finally {
    await unlink(draft);
  }
}

function startOfThisProcess(): string {
  return new Date(performance.timeOrigin).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * Makes this process the only one on the embedded database in `dataDir`, through the lock file
 * next to it, or throws DatabaseInUseError naming the process that is, and saying what to do
 * (`whenInUse`). A lock left by a process that died is taken over. Released by `release()` or when
 * this process exits.
 */
export async function lockEmbeddedDatabase(dataDir: string, role: string, whenInUse = 'stop it first'): Promise<EmbeddedLock> {
  const path = `${resolve(dataDir)}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const holder: LockHolder = { pid: process.pid, role, startedAt: startOfThisProcess(), nonce: randomUUID() };
  heldHere.add(holder.nonce);
  let other: LockHolder | null;
  try {
    other = await claim(path, holder);
  } catch (error) {
    heldHere.delete(holder.nonce);
    throw error;
  }
  if (other) {
    heldHere.delete(holder.nonce);
    throw new DatabaseInUseError(dataDir, other, whenInUse);
  }
  const release = () => {
    if (!heldHere.delete(holder.nonce)) return;
    process.off('exit', release);
    rmSync(path, { force: true });
  };
  process.on('exit', release);
  return { release };
}
