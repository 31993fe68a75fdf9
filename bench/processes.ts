import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';

export type ServerMode =
  | 'skillet'
  | 'baseline'
  | 'sse-baseline'
  | 'file-baseline'
  | 'webhook-baseline'
  | 'mcp-baseline'
  | 'page-baseline'
  | 'soak-baseline';

export interface Server {
  url: string;
  process: ChildProcess;
  /** The server's output after its URL: one line per memory reading asked for. */
  output: Interface;
}

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/**
 * On a machine with two or more cores the server under test and the load generator each
 * get a core of their own (taskset), the same for baseline and Skillet, so that they do
 * not trade places on the scheduler mid-run.
 */
export const pinning = availableParallelism() >= 2 && commandExists('taskset');

export function pinSelf(): void {
  if (pinning) spawnSync('taskset', ['-cp', '0', String(process.pid)]);
}

const LOG_TAIL_CHARS = 8192;

/** Servers still running when this process exits, however it exits, go with it. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

/**
 * Node flags for every server a suite starts, baselines included: BENCH_SERVER_NODE_FLAGS,
 * say `--cpu-prof --cpu-prof-dir=/tmp/profiles` to profile them under the suite's load
 * (Node refuses those flags in NODE_OPTIONS).
 */
const serverNodeFlags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');

/** A server on a core of its own, beside the load generator's. */
export function startServer(mode: ServerMode, ...modeArgs: string[]): Promise<Server> {
  return startPlaced('1', mode, modeArgs);
}

/**
 * A server free to use every core, as in a deployment, for suites whose server starts
 * processes of its own (sandboxes, the shells that launch them) and leans on its thread pool
 * for files: pinned, those inherit its one core and take their turns on it from the server's
 * event loop, which no deployment does. This process stays on core 0, so the server's
 * children must be given every core back explicitly.
 */
export function startServerOnEveryCore(mode: ServerMode, ...modeArgs: string[]): Promise<Server> {
  return startPlaced(`0-${cpus().length - 1}`, mode, modeArgs);
}

async function startPlaced(cores: string, mode: ServerMode, modeArgs: string[]): Promise<Server> {
  const script = path.join(import.meta.dirname, 'server.js');
  const command = [process.execPath, '--expose-gc', ...serverNodeFlags, script, mode, ...modeArgs];
  const [file, ...args] = pinning ? ['taskset', '-c', cores, ...command] : command;
  // Its log lines (info, as in production) go to stderr, read and dropped as a log shipper
  // would; the last of them are shown should the server die on its own.
  const child = spawn(file as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let logTail = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    logTail = (logTail + chunk).slice(-LOG_TAIL_CHARS);
  });
  child.once('exit', (code, signal) => {
    started.delete(child);
    if (code !== 0 && signal === null) console.error(`the ${mode} server exited with ${code}; its last log lines:\n${logTail}`);
  });
  const output = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  // Start-up warnings (test-mode payments, say) are logged before the URL line.
  let url = '';
  while (!/^https?:\/\//.test(url)) [url] = (await once(output, 'line')) as [string];
  return { url, process: child, output };
}

export async function stop(server: Server): Promise<void> {
  server.process.kill('SIGTERM');
  await once(server.process, 'exit');
}

export interface MemoryReading {
  /** Resident memory (Linux), in bytes. */
  resident: number;
  /** What the JavaScript heap holds, plus memory outside it owned by its objects (buffers). */
  heap: number;
}

/**
 * A server process's memory after asking it to collect its garbage (SIGUSR2, see
 * server.ts), so that leftovers of earlier work do not count.
 */
export async function memoryAfterCollection(server: Server): Promise<MemoryReading> {
  const reported = once(server.output, 'line') as Promise<[string]>;
  server.process.kill('SIGUSR2');
  const { heapUsed, external } = JSON.parse((await reported)[0]) as { heapUsed: number; external: number };
  // Freed pages go back to the system a moment after the collection.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return { resident: residentNow(server), heap: heapUsed + external };
}

const PAGE_BYTES = Number(spawnSync('getconf', ['PAGESIZE']).stdout.toString().trim()) || 4096;

/**
 * Resident memory right now, garbage and all: for sampling a peak. It reads statm, which,
 * unlike status, does not take the process's memory-map lock, so frequent sampling does
 * not slow the server it measures.
 */
export function residentNow(server: Server): number {
  const residentPages = readFileSync(`/proc/${server.process.pid}/statm`, 'utf8').split(' ')[1];
  return Number(residentPages) * PAGE_BYTES;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;

/** CPU time from a /proc stat file (a process's or one thread's), in ms. */
export interface CpuTimes {
  /** User and system time of the process (or of the thread). */
  own: number;
  /** Its reaped children's: for a process, the sandboxes and skills it ran. */
  children: number;
}

/** Reads /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat (Linux); their clock ticks are coarse, 10 ms here. */
export function cpuTimes(statFile: string): CpuTimes {
  const stat = readFileSync(statFile, 'utf8');
  // The fields after the command name, whose parentheses may hold spaces: state is the first.
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  return { own: ms((fields[11] ?? 0) + (fields[12] ?? 0)), children: ms((fields[13] ?? 0) + (fields[14] ?? 0)) };
}

export async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A user with an API key on a Skillet server. */
export async function seedUser(url: string, email: string): Promise<{ apiKey: string; token: string }> {
  const signedIn = await json<{ token: string }>(`${url}/api/v1/auth/signup`, {
    method: 'POST',
    body: JSON.stringify({ email, password: 'bench password' }),
  });
  const key = await json<{ key: string }>(`${url}/api/v1/keys`, {
    method: 'POST',
    headers: { 'x-auth-token': signedIn.token },
    body: JSON.stringify({ label: 'bench' }),
  });
  return { apiKey: key.key, token: signedIn.token };
}
