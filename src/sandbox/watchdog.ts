import type { ChildProcess } from 'node:child_process';
import { type Dirent, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LimitBreach, RunGroup } from '../ports/sandbox.js';
import { watchFolderTree } from './folder-watch.js';
import { boundedUsage, outputSpace } from './run-space.js';

/** What a run may use; each is checked on every tick. */
export interface WatchedLimits {
  memoryBytes: number;
  cpuSeconds: number;
  processes: number;
  outputDir: string;
  outputBytes: number;
  outputFiles: number;
}

const PAGE_BYTES = 4096;
// USER_HZ: the unit of /proc's CPU times, 100 on every Linux build Node supports.
const TICKS_PER_SECOND = 100;
const TICK_MS = 100;

async function readProc(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined; // the process ended between two reads
  }
}

/** Every process under `root` (itself included), found through /proc's children lists. */
async function processTree(root: number): Promise<number[]> {
  const found: number[] = [];
  const pending = [root];
  while (pending.length > 0 && found.length < 10_000) {
    const pid = pending.pop() as number;
    found.push(pid);
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const task of tasks) {
      const children = await readProc(`/proc/${pid}/task/${task}/children`);
      for (const child of children?.split(' ') ?? []) if (child.trim() !== '') pending.push(Number(child));
    }
  }
  return found;
}

interface Usage {
  residentBytes: number;
  cpuTicks: number;
}

async function usageOf(pid: number): Promise<Usage> {
  const [statm, stat] = await Promise.all([readProc(`/proc/${pid}/statm`), readProc(`/proc/${pid}/stat`)]);
  const residentPages = Number(statm?.split(' ')[1] ?? 0);
  // The command name in parentheses may hold spaces; the fields after it are fixed.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ') ?? [];
  // utime, stime, cutime, cstime: fields 14 to 17 of the line, 11 to 14 after the name.
  const cpuTicks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return { residentBytes: residentPages * PAGE_BYTES, cpuTicks };
}

/** Bytes of regular files under `dir`, and how many entries (folders count too), without following links. */
export async function folderUsage(dir: string): Promise<{ bytes: number; files: number }> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  let bytes = 0;
  const files = entries.length;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    bytes += await lstat(path.join(entry.parentPath, entry.name)).then(
      (stats) => stats.size,
      () => 0,
    );
  }
  return { bytes, files };
}

/** The output folder against its limits. */
export async function inspectOutput(limits: WatchedLimits): Promise<LimitBreach | undefined> {
  const output = await folderUsage(limits.outputDir);
  if (output.bytes > limits.outputBytes) return { limit: 'output-bytes', bytes: output.bytes };
  if (output.files > limits.outputFiles) return { limit: 'output-files', count: output.files };
  // A bounded folder that is full went over, though no file shows it: the kernel counts
  // deleted files still open, which no look at the files can see.
  const bounded = await boundedUsage(limits.outputDir, outputSpace(limits));
  if (bounded?.full) {
    return bounded.files > limits.outputFiles
      ? { limit: 'output-files', count: bounded.files }
      : { limit: 'output-bytes', bytes: bounded.bytes };
  }
  return undefined;
}

/** One look at a run: the first limit it is over, if any. */
async function inspectRun(rootPid: number, limits: WatchedLimits): Promise<LimitBreach | undefined> {
  const pids = await processTree(rootPid);
  if (pids.length > limits.processes) return { limit: 'processes', count: pids.length };
  const usages = await Promise.all(pids.map(usageOf));
  const residentBytes = usages.reduce((sum, usage) => sum + usage.residentBytes, 0);
  if (residentBytes > limits.memoryBytes) return { limit: 'memory', bytes: residentBytes };
  const seconds = usages.reduce((sum, usage) => sum + usage.cpuTicks, 0) / TICKS_PER_SECOND;
  if (seconds > limits.cpuSeconds) return { limit: 'cpu', seconds };
  return inspectOutput(limits);
}

/**
 * Runs `inspect` whenever asked, one at a time: a request made while one runs is served
 * by one more run after it, so a burst of requests costs two inspections, not a queue.
 */
function coalesced(inspect: () => Promise<LimitBreach | undefined>, onBreach: (breach: LimitBreach) => void) {
  let running = false;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    inspect()
      .then((breach) => breach && onBreach(breach))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return run;
}

/** Bytes and entries of the output folder, read at once: the check that confirms a breach must not wait for I/O threads. */
function folderUsageNow(dir: string): { sizes: Map<string, number>; files: number } {
  const sizes = new Map<string, number>();
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    // the folder went away with the run
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    try {
      sizes.set(file, lstatSync(file).size);
    } catch {
      // removed while we looked
    }
  }
  return { sizes, files: entries.length };
}

/**
 * Keeps the size of every file inotify names, updated in the event's own callback: a writer
 * filling memory-speed disks outruns anything that waits for the I/O thread pool, most of all
 * on a busy machine. A total over the limit is confirmed by a full synchronous walk before it
 * counts, so renamed folders cannot fake a breach; the walk then resets the tally.
 */
function outputTally(limits: WatchedLimits, report: (breach: LimitBreach) => void) {
  let sizes = new Map<string, number>();
  let total = 0;
  return (name: string, stats: Stats | undefined) => {
    const file = path.join(limits.outputDir, name);
    // Gone, or renamed away: it holds nothing now.
    const size = stats?.isFile() ? stats.size : 0;
    total += size - (sizes.get(file) ?? 0);
    sizes.set(file, size);
    if (total <= limits.outputBytes) return;
    const walked = folderUsageNow(limits.outputDir);
    sizes = walked.sizes;
    total = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
    if (total > limits.outputBytes) report({ limit: 'output-bytes', bytes: total });
  };
}

/**
 * Watches a running skill and reports the first limit it goes over: its process tree (or,
 * in a run group, the group's counters) every 100 ms, and its output folder on every
 * change to it (inotify), so a fast writer is
 * stopped within a few writes rather than a tick. Hard rlimits (prlimit) stop what a look
 * is too slow to catch; this names the limit and covers what rlimits cannot (resident
 * memory, folder totals).
 */
export function watchRun(
  rootPid: number,
  limits: WatchedLimits,
  onBreach: (breach: LimitBreach) => void,
  group?: RunGroup,
): () => void {
  let stopped = false;
  const report = (breach: LimitBreach) => {
    if (stopped) return;
    stop();
    onBreach(breach);
  };
  // A run group's counters replace the walk of /proc: the kernel already holds memory and
  // processes, and reading them costs the same however many processes the run has.
  const inspect = group ? async () => (await group.breach()) ?? (await inspectOutput(limits)) : () => inspectRun(rootPid, limits);
  const lookAtRun = coalesced(inspect, report);
  const lookAtOutput = coalesced(() => inspectOutput(limits), report);
  const tally = outputTally(limits, report);
  const timer = setInterval(lookAtRun, TICK_MS);
  // One watch per folder: Node 20's recursive watch costs more with every file a run writes.
  const stopWatchingFolder = watchFolderTree(limits.outputDir, limits.outputFiles + 1, (name, stats) => {
    tally(name, stats);
    if (!stopped) lookAtOutput();
  });
  function stop() {
    stopped = true;
    clearInterval(timer);
    stopWatchingFolder();
  }
  return stop;
}

/** The processes under `root`, read from /proc at once: a kill must not wait for the event loop. */
function processTreeNow(root: number): number[] {
  const found: number[] = [];
  const pending = [root];
  while (pending.length > 0 && found.length < 10_000) {
    const pid = pending.pop() as number;
    found.push(pid);
    try {
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
        for (const child of children.split(' ')) if (child.trim() !== '') pending.push(Number(child));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/**
 * Kills the skill's whole process tree, innermost first and the process we started last:
 * killing bubblewrap's monitor alone can orphan its inner init at the wrong moment, and the
 * orphan keeps the run's pipes open.
 */
export function killTree(child: ChildProcess): void {
  const tree = child.pid && child.exitCode === null && child.signalCode === null ? processTreeNow(child.pid) : [];
  for (const pid of tree.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  child.kill('SIGKILL');
}
