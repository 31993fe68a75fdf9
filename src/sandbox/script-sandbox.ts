import { existsSync } from 'node:fs';
import { mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { LimitBreach, RunGroup, SkillSandbox } from '../ports/sandbox.js';
import { SANDBOX_PYTHON } from './computer/computer-software.js';
import { isInside, relativeParts, ToolRefused } from './confined-files.js';
import { SKILL_NODE } from './node-runtime.js';
import { ENABLE_SANDBOX_HINT, namespaceArgs } from './sandbox.js';
import { seccompArgs } from './seccomp-filter.js';
import { systemViewArgs } from './system-folders.js';
import type { RunLimits } from './types.js';
import { folderUsage } from './watchdog.js';
import { prlimitArgs, signalOfExit, spawnWatched, watchedLimits } from './watched-child.js';

export interface ScriptRequest {
  skillDir: string;
  /** Relative to the skill's folder; must name a regular file under its scripts/ folder. */
  scriptPath: string;
  args: string[];
  stdin: string;
  outputDir: string;
}

export interface ScriptResult {
  /** null when the script was killed (by a limit, the time limit or a stop). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  note?: string;
}

export const STREAM_CAP_BYTES = 32 * 1024;
const WALL_CAP_MS = 120_000;
const PIPE_GRACE_MS = 2000;
const MIB = 1024 * 1024;
const BASH = ['/usr/bin/bash', '/bin/bash'].find((candidate) => existsSync(candidate));
// The model reads stderr: Node's notice that the permission model is experimental is only noise there.
const QUIET = process.allowedNodeEnvironmentFlags.has('--disable-warning') ? ['--disable-warning=ExperimentalWarning'] : [];
type Interpreter = 'node' | 'python' | 'bash';
const INTERPRETERS: Record<string, Interpreter> = { '.js': 'node', '.mjs': 'node', '.py': 'python', '.sh': 'bash' };

async function resolveScript(skillDir: string, scriptPath: string) {
  const parts = relativeParts(scriptPath);
  const skill = await realpath(skillDir);
  let script: string;
  try {
    script = await realpath(path.join(skill, ...parts));
  } catch {
    throw new ToolRefused(`There is no file "${scriptPath}" in the skill's folder.`);
  }
  // The real path must be under the skill's own scripts/ folder, so neither a link named like a
  // script nor a scripts/ folder that is itself a link can lead anywhere else.
  if (!isInside(path.join(skill, 'scripts'), script)) {
    throw new ToolRefused(`"${scriptPath}" is not a file under the skill's scripts/ folder; only those can be run.`);
  }
  if (!(await stat(script)).isFile()) throw new ToolRefused(`"${scriptPath}" is not a regular file.`);
  const interpreter = INTERPRETERS[path.extname(script).toLowerCase()];
  if (!interpreter) throw new ToolRefused(`"${scriptPath}" cannot be run: only .js, .mjs, .py and .sh scripts run.`);
  return { skill, script, interpreter };
}

/** How this server may run the script: in bubblewrap, or bare (permission model or unconfined). */
function confinement(sandbox: SkillSandbox, interpreter: Interpreter, builtIn: boolean): 'bwrap' | 'bare' {
  if (sandbox.kind === 'bwrap' && sandbox.bwrapPath) return 'bwrap';
  if (sandbox.runsUntrusted) return 'bare'; // the operator chose SKILL_SANDBOX=none
  if (builtIn && interpreter === 'node') return 'bare'; // Node's permission model still holds it
  const which = interpreter === 'node' ? "This skill's scripts" : 'Python and bash scripts';
  throw new ToolRefused(
    `${which} cannot run here: the skill sandbox is not available on this server. To enable it, ${ENABLE_SANDBOX_HINT}.`,
  );
}

function checkInput(args: string[], stdin: string): void {
  if (args.length > 256 || args.reduce((sum, arg) => sum + arg.length, 0) > 64 * 1024) {
    throw new ToolRefused('args are too long (at most 256 arguments and 64 KB in all).');
  }
  if (args.some((arg) => arg.includes('\0'))) throw new ToolRefused('args may not contain NUL bytes.');
  if (Buffer.byteLength(stdin) > MIB) throw new ToolRefused('stdin is too long (at most 1 MB).');
}

/** bubblewrap's arguments: Node sees its own files only; python3 and bash see the system folders, minus this server's. */
function isolation(interpreter: Interpreter, sandbox: SkillSandbox, skill: string, output: string): string[] {
  if (interpreter === 'node') return namespaceArgs(sandbox.runtimeFiles, [skill], [output]);
  return systemViewArgs([], ['--ro-bind', skill, skill, '--bind', output, output]);
}

interface Target {
  interpreter: Interpreter;
  script: string;
  skill: string;
  output: string;
}

/**
 * The whole command line: the interpreter (arguments after the script go to the script, never
 * the interpreter), inside bubblewrap when `how` says so, under prlimit when the server has it.
 */
function commandFor(target: Target, args: string[], sandbox: SkillSandbox, limits: RunLimits, how: 'bwrap' | 'bare') {
  const { interpreter, script, skill, output } = target;
  const node = how === 'bwrap' ? (sandbox.runtimeFiles[0] ?? process.execPath) : process.execPath;
  const nodeFlags = [`--allow-fs-read=${skill}`, `--allow-fs-read=${output}`, `--allow-fs-write=${output}`];
  const interpreters: Record<Interpreter, string[]> = {
    node: [node, SKILL_NODE.permissionFlag, ...QUIET, ...nodeFlags, `--max-old-space-size=${limits.memoryMb}`],
    // -E: no PYTHON* variables, -s: no user site folder, -B: no .pyc written into the skill.
    python: [SANDBOX_PYTHON, '-E', '-s', '-B'],
    bash: [BASH ?? '/bin/bash', '--noprofile', '--norc'],
  };
  let command = [...interpreters[interpreter], script, ...args];
  if (how === 'bwrap' && sandbox.bwrapPath) {
    command = [
      sandbox.bwrapPath,
      ...seccompArgs(sandbox.seccompFile),
      ...isolation(interpreter, sandbox, skill, output),
      '--chdir',
      output,
      ...command,
    ];
  }
  if (!sandbox.prlimit) return command;
  const data = limits.memoryMb * MIB + (interpreter === 'node' ? SKILL_NODE.dataHeadroomBytes : 0);
  return [sandbox.prlimit, ...prlimitArgs(limits, data), '--', ...command];
}

/** Keeps the first `cap` bytes of a stream and counts the rest without keeping it. */
function boundedCollector(stream: Readable, cap: number) {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (keptBytes >= cap) return;
    // A copy, so the rest of a large chunk is not held through a view of it.
    const part = Buffer.from(chunk.subarray(0, cap - keptBytes));
    kept.push(part);
    keptBytes += part.length;
  });
  return () => {
    // Streaming decode holds back a character the cut split in two instead of mangling it.
    const text = new TextDecoder().decode(Buffer.concat(kept), { stream: total > keptBytes });
    return { text, total, cut: total > keptBytes };
  };
}

function breachText(breach: LimitBreach, limits: RunLimits): string {
  const texts: Record<LimitBreach['limit'], string> = {
    memory: `it went over its memory limit of ${limits.memoryMb} MiB`,
    cpu: `it used more than its CPU time limit of ${limits.cpuSeconds} seconds`,
    processes: `it started more processes than its limit of ${limits.processLimit}`,
    'output-bytes': `the output folder went over its limit of ${limits.outputLimitBytes} bytes`,
    'output-files': `the output folder went over its limit of ${limits.outputFileLimit} files`,
  };
  return texts[breach.limit];
}

/**
 * Runs one script of a skill, confined as DESIGN §8 says: in bubblewrap when the server has
 * it (no network, own PIDs, read-only view of the skill and the interpreter, the output
 * folder as the only writable path and the working directory), under prlimit's hard limits,
 * with an empty environment, watched for processes, memory, CPU and output, and killed at
 * the wall limit or when `signal` aborts. Throws ToolRefused for a script it will not run.
 */
export async function runSkillScript(
  request: ScriptRequest,
  sandbox: SkillSandbox,
  limits: RunLimits & { builtIn: boolean },
  signal: AbortSignal,
  group?: RunGroup,
): Promise<ScriptResult> {
  checkInput(request.args, request.stdin);
  const { skill, script, interpreter } = await resolveScript(request.skillDir, request.scriptPath);
  const how = confinement(sandbox, interpreter, limits.builtIn);
  if (interpreter === 'python' && !existsSync(SANDBOX_PYTHON)) throw new ToolRefused(`Python is not installed on this server.`);
  if (interpreter === 'bash' && !BASH) throw new ToolRefused('bash is not installed on this server.');
  await mkdir(request.outputDir, { recursive: true });
  const output = await realpath(request.outputDir);
  // The writable bind would cover a skill folder inside the output and make it writable.
  if (output === skill || isInside(output, skill)) throw new ToolRefused('The output folder may not hold the skill.');
  if (signal.aborted) return { exitCode: null, stdout: '', stderr: '', note: 'The run was stopped before the script started.' };

  const [file, ...args] = commandFor({ interpreter, script, skill, output }, request.args, sandbox, limits, how);
  const wallMs = Math.min(limits.timeoutMs, WALL_CAP_MS);
  // Its own process group, so a kill reaches whatever a bare (unsandboxed) script started too.
  const run = spawnWatched<string>(
    { file: file ?? '', args },
    {
      cwd: output,
      env: { PATH: '/usr/bin:/bin', HOME: '/tmp' },
      detached: true,
      timeoutMs: wallMs,
      watched: watchedLimits(limits, output),
      setpriv: sandbox.setpriv,
      seccompFile: how === 'bwrap' ? sandbox.seccompFile : undefined,
      ...(group ? { group } : {}),
    },
    {
      timedOut: () => `The script was killed: it ran past its time limit of ${wallMs} ms.`,
      breached: (breach) => `The script was killed: ${breachText(breach, limits)}.`,
    },
  );
  const { child } = run;
  const onAbort = () => run.kill('The script was killed: the run was stopped.');
  signal.addEventListener('abort', onAbort, { once: true });

  const stdout = boundedCollector(child.stdout, STREAM_CAP_BYTES);
  const stderr = boundedCollector(child.stderr, STREAM_CAP_BYTES);
  child.stdin.on('error', () => undefined); // a script that exits without reading its input
  child.stdin.end(request.stdin);
  const ended = await Promise.race([
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('close', (code, signal) => resolve({ code, signal }));
      // A bare script's daemon in a group of its own could hold the pipes open for ever.
      child.once('exit', (code, signal) => {
        const giveUp = () => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve({ code, signal });
        };
        setTimeout(giveUp, PIPE_GRACE_MS).unref();
      });
    }),
    new Promise<Error>((resolve) => child.once('error', resolve)),
  ]);
  run.unwatch();
  signal.removeEventListener('abort', onAbort);
  if (ended instanceof Error) throw new ToolRefused('The script could not be started on this server.');

  const out = stdout();
  const err = stderr();
  const notes: string[] = [];
  const { killedFor } = run;
  if (killedFor) notes.push(killedFor);
  else {
    const name = signalOfExit(ended.code, ended.signal, how === 'bwrap');
    if (name === 'SIGXCPU') notes.push(`The script was killed: ${breachText({ limit: 'cpu', seconds: 0 }, limits)}.`);
    else if (name) notes.push(`The script was killed by ${name}.`);
  }
  if (out.cut) notes.push(`stdout was cut to its first ${STREAM_CAP_BYTES} bytes (the script printed ${out.total}).`);
  if (err.cut) notes.push(`stderr was cut to its first ${STREAM_CAP_BYTES} bytes (the script printed ${err.total}).`);
  const usage = await folderUsage(output);
  if (usage.bytes > limits.outputLimitBytes || usage.files > limits.outputFileLimit) {
    notes.push(
      `The output folder is over its limits (${usage.bytes} bytes of ${limits.outputLimitBytes}, ` +
        `${usage.files} files and folders of ${limits.outputFileLimit}); shrink it before the run ends.`,
    );
  }
  const exitCode = killedFor ? null : ended.code;
  return { exitCode, stdout: out.text, stderr: err.text, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}
