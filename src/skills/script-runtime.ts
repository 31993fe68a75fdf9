import { spawn } from 'node:child_process';
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT, SKILL_HARNESS } from '../paths.js';
import { parseSkillMessage, type SkillMessage } from './protocol.js';
import type { Skill } from './registry.js';

export interface ScriptLimits {
  timeoutMs: number;
  memoryMb: number;
  outputLimitBytes: number;
}

export type ScriptOutcome = { kind: 'completed' } | { kind: 'stopped' } | { kind: 'failed'; reason: string };

export interface ScriptRun {
  finished: Promise<ScriptOutcome>;
  /** Kills the child; the run ends as stopped (an interrupt or a cancel). */
  stop(): void;
}

// Node 20 names the permission model experimental; later versions dropped the prefix.
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
const STDERR_KEPT = 2048;

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath ?? dir, entry.name))).size;
  }
  return total;
}

/** The error line of what the child printed last, without stack frames or Node's banner. */
function errorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at ') && !line.startsWith('Node.js v'));
  return lines.findLast((line) => /^\w*(Error|Exception)\b.*:/.test(line)) ?? lines.at(-1);
}

function failureReason(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  if (/heap out of memory|Allocation failed/i.test(stderr)) return 'the skill ran out of memory';
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const detail = errorLine(stderr);
  return detail ? `the skill ${how}: ${detail.slice(0, 300)}` : `the skill ${how}`;
}

/**
 * Runs a script skill in a child process: Node's permission model lets it read its own
 * folder (and the shared packages) and write only `outputDir`; it gets no environment,
 * so no server secret reaches it. Messages are handed to `onMessage` one at a time, in order.
 */
export async function startScript(
  skill: Skill,
  input: string,
  outputDir: string,
  limits: ScriptLimits,
  onMessage: (message: SkillMessage) => Promise<void>,
): Promise<ScriptRun> {
  await mkdir(outputDir, { recursive: true });
  const entry = path.join(skill.dir, skill.entry ?? '');
  const child = spawn(
    process.execPath,
    [
      PERMISSION_FLAG,
      `--allow-fs-read=${skill.dir}`,
      `--allow-fs-read=${path.dirname(SKILL_HARNESS)}`,
      `--allow-fs-read=${path.join(PROJECT_ROOT, 'node_modules')}`,
      `--allow-fs-read=${outputDir}`,
      `--allow-fs-write=${outputDir}`,
      `--max-old-space-size=${limits.memoryMb}`,
      SKILL_HARNESS,
      entry,
      outputDir,
      String(limits.outputLimitBytes),
    ],
    { cwd: outputDir, env: {}, stdio: ['pipe', 'pipe', 'pipe'] },
  );

  let ending: ScriptOutcome | undefined;
  const end = (outcome: ScriptOutcome) => {
    ending ??= outcome;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(
    () => end({ kind: 'failed', reason: `the skill ran past its time limit of ${limits.timeoutMs} ms` }),
    limits.timeoutMs,
  );

  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  child.stdin.on('error', () => undefined); // a child that exits before reading its input
  child.stdin.end(input);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );

  const finished = (async (): Promise<ScriptOutcome> => {
    let reported = 0;
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (ending) break;
      if (line.trim() === '') continue;
      const message = parseSkillMessage(line);
      if (!message) {
        end({ kind: 'failed', reason: `the skill printed something that is not a protocol message: ${line.slice(0, 120)}` });
        break;
      }
      if (message.type === 'file') reported += message.size;
      if (reported > limits.outputLimitBytes) {
        end({ kind: 'failed', reason: `the skill wrote more than its output limit of ${limits.outputLimitBytes} bytes` });
        break;
      }
      await onMessage(message);
    }
    const { code, signal } = await exited;
    clearTimeout(timer);
    if (ending) return ending;
    if (code !== 0) return { kind: 'failed', reason: failureReason(code, signal, stderr) };
    if ((await directorySize(outputDir)) > limits.outputLimitBytes) {
      return { kind: 'failed', reason: `the skill wrote more than its output limit of ${limits.outputLimitBytes} bytes` };
    }
    return { kind: 'completed' };
  })();

  return { finished, stop: () => end({ kind: 'stopped' }) };
}
