/**
 * The pieces of a computer's first command, each timed on its own in this process (no server,
 * no model): bubblewrap around bash (the computer bench's baseline), the same joining the
 * run's control group first, bubblewrap around the Python the supervisor runs on, the run's
 * control group made, and a whole ComputerSession
 * from its start to its first `echo hi`, without and with the group.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CgroupHost, RunGroup, SkillSandbox } from '../src/ports/sandbox.js';
import { ComputerSession } from '../src/sandbox/computer/computer-session.js';
import { SANDBOX_PYTHON } from '../src/sandbox/computer/computer-software.js';
import { launchCommand } from '../src/sandbox/launch-command.js';
import { systemViewArgs } from '../src/sandbox/system-folders.js';
import { median } from './processes.js';

/** The shell's environment, as the computer gives it. */
const SHELL_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/workspace', LANG: 'C.UTF-8', TERM: 'dumb' };
/** Generous: these limits are never reached by `echo hi`; making the group is what is timed. */
const GROUP_LIMITS = { memoryBytes: 512 * 1024 * 1024, processes: 256, cpuSeconds: 60 };
const PROFILE_ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 10);

/** bubblewrap's arguments up to the command, for a sandbox seeing what the computer's sees, with `workspace` at /workspace. */
export function bareSandboxArgs(sandbox: SkillSandbox, workspace: string): string[] {
  return [
    ...systemViewArgs(
      sandbox.runtimeFiles.map((file) => realpathSync(file)),
      ['--bind', workspace, '/workspace'],
    ),
    '--as-pid-1',
    '--chdir',
    '/workspace',
  ];
}

/** Spawns `file args`; resolves with the milliseconds until its stdout said `expected`, once it has exited cleanly. */
export async function timeSpawn(file: string, args: string[], expected: string): Promise<number> {
  const started = performance.now();
  const child = spawn(file, args, { env: SHELL_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let answeredAt = Number.NaN;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out === expected) answeredAt = performance.now();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0 || Number.isNaN(answeredAt))
    throw new Error(`${file} exited with ${code}, printing ${JSON.stringify(out)}: ${err}`);
  return answeredAt - started;
}

/** A ComputerSession's own start and first `echo hi`, as a run would have them (run-computer.ts), in a folder of `root`. */
async function timeSession(sandbox: SkillSandbox, root: string, group: RunGroup | undefined): Promise<number> {
  const spaceDir = await mkdtemp(path.join(root, 'space-'));
  for (const part of ['home', 'tmp', 'shm']) await mkdir(path.join(spaceDir, part));
  const outputDir = await mkdtemp(path.join(root, 'out-'));
  const folders = { skills: [], outputDir, space: { host: spaceDir }, networkDir: undefined, uploadsDir: undefined };
  const session = new ComputerSession({ sandbox, folders, group, env: {} });
  const started = performance.now();
  try {
    session.warmUp();
    const answer = await session.call({ op: 'bash', command: 'echo hi' }, 10_000);
    if (answer.stdout !== 'hi\n') throw new Error(`the computer answered ${JSON.stringify(answer)}`);
    return performance.now() - started;
  } finally {
    session.close();
  }
}

async function timeGroup(host: CgroupHost): Promise<{ ms: number; group: RunGroup }> {
  const started = performance.now();
  const group = await host.create(GROUP_LIMITS);
  return { ms: performance.now() - started, group };
}

export interface ComputerProfile {
  bwrapBash: number;
  bwrapBashInGroup: number;
  bwrapPython: number;
  groupCreate: number;
  sessionNoGroup: number;
  sessionInGroup: number;
}

/** Medians of PROFILE_ROUNDS rounds of each piece, after one unmeasured round. */
export async function profileComputer(sandbox: SkillSandbox, bwrap: string, host: CgroupHost): Promise<ComputerProfile> {
  const root = await mkdtemp(path.join(tmpdir(), 'skillet-bench-computer-'));
  const samples: Record<keyof ComputerProfile, number[]> = {
    bwrapBash: [],
    bwrapBashInGroup: [],
    bwrapPython: [],
    groupCreate: [],
    sessionNoGroup: [],
    sessionInGroup: [],
  };
  try {
    const workspace = await mkdtemp(path.join(root, 'ws-'));
    const args = bareSandboxArgs(sandbox, workspace);
    for (let round = 0; round <= PROFILE_ROUNDS; round++) {
      const bash = await timeSpawn(bwrap, [...args, 'bash', '-c', 'echo hi'], 'hi\n');
      const python = await timeSpawn(bwrap, [...args, SANDBOX_PYTHON, '-E', '-s', '-B', '-c', 'print("hi")'], 'hi\n');
      const noGroup = await timeSession(sandbox, root, undefined);
      const { ms: groupMs, group } = await timeGroup(host);
      try {
        const joining = launchCommand(
          { file: bwrap, args: [...args, 'bash', '-c', 'echo hi'] },
          { procsFiles: group.procsFiles },
        );
        const bashInGroup = await timeSpawn(joining.file, joining.args, 'hi\n');
        const inGroup = await timeSession(sandbox, root, group);
        if (round === 0) continue;
        samples.bwrapBash.push(bash);
        samples.bwrapBashInGroup.push(bashInGroup);
        samples.bwrapPython.push(python);
        samples.sessionNoGroup.push(noGroup);
        samples.groupCreate.push(groupMs);
        samples.sessionInGroup.push(inGroup);
      } finally {
        await group.remove();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return {
    bwrapBash: median(samples.bwrapBash),
    bwrapBashInGroup: median(samples.bwrapBashInGroup),
    bwrapPython: median(samples.bwrapPython),
    groupCreate: median(samples.groupCreate),
    sessionNoGroup: median(samples.sessionNoGroup),
    sessionInGroup: median(samples.sessionInGroup),
  };
}

const ms = (value: number) => Number(value.toFixed(1));

export function reportProfile(profile: ComputerProfile): void {
  console.log(`\nThe computer's pieces on their own, in this process (medians of ${PROFILE_ROUNDS}, ms)\n`);
  console.table([
    { piece: 'bwrap, same namespace, bash -c "echo hi" (the baseline)', ms: ms(profile.bwrapBash) },
    { piece: "the same, joining the run's control group first (sh writing cgroup.procs)", ms: ms(profile.bwrapBashInGroup) },
    {
      piece: "bwrap, same namespace, python3 -E -s -B -c 'print(\"hi\")' (the supervisor's interpreter)",
      ms: ms(profile.bwrapPython),
    },
    { piece: 'ComputerSession start to its first `echo hi` answer, no control group', ms: ms(profile.sessionNoGroup) },
    { piece: "the run's control group made (mkdir, limits written)", ms: ms(profile.groupCreate) },
    { piece: 'ComputerSession start to its first `echo hi` answer, joining the group', ms: ms(profile.sessionInGroup) },
  ]);
}
