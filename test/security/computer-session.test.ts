import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { ComputerAnswer } from '../../src/sandbox/computer/computer-machine.js';
import { type ComputerFolders, ComputerSession } from '../../src/sandbox/computer/computer-session.js';
import { ToolRefused } from '../../src/sandbox/confined-files.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { BUBBLEWRAP_HERE } from '../helpers/sandbox.js';

const sandbox = await detectSandbox('auto');
const MIB = 1024 * 1024;

let root: string;
let folders: ComputerFolders;
let session: ComputerSession;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'computer-'));
  const skill = path.join(root, 'skill');
  await mkdir(path.join(root, 'out'));
  await mkdir(skill);
  await writeFile(path.join(skill, 'SKILL.md'), '---\nname: s\ndescription: d\n---\n');
  // No host folder: the space bubblewrap makes inside, the fallback where the server cannot mount.
  folders = {
    skills: [{ slug: 's', dir: skill }],
    outputDir: path.join(root, 'out'),
    space: { sandbox: MIB },
    uploadsDir: undefined,
    networkDir: undefined,
  };
  process.env.SECRET_OF_SERVER = 'no';
  session = new ComputerSession({ sandbox, folders, group: undefined, env: {} });
});

afterEach(async () => {
  delete process.env.SECRET_OF_SERVER;
  session.close();
  await rm(root, { recursive: true, force: true });
});

const bash = (command: string, timeout = 10_000): Promise<ComputerAnswer> =>
  session.call({ op: 'bash', command, timeout_ms: timeout }, timeout);

/** The computer fought from inside: every attempt is one a model could make. */
describe.runIf(BUBBLEWRAP_HERE)('a computer attacked from inside', () => {
  it('bounds /workspace, /tmp and /dev/shm where the server cannot mount, and runs as nobody', async () => {
    const full = await bash(
      'id -u; head -c 2M /dev/zero > /workspace/x; head -c 2M /dev/zero > /dev/shm/y; df -k /tmp | tail -1',
    );
    expect(full.stdout).toMatch(/^65534\n.*1024/s);
    expect(String(full.stderr).match(/No space left on device/g)).toHaveLength(2);
  });

  it('survives kill -9 -1: the supervisor is process 1, out of the commands’ reach', async () => {
    await bash('export KEPT=1');
    // kill -1 spares the shell that sends it; process 1 ignores what it has no handler for.
    const killed = await bash('sleep 60 & kill -9 -1; kill -9 1; echo "still here"');
    expect(killed.stdout).toBe('still here\n');
    expect((await bash('echo alive "[$KEPT]"')).stdout).toBe('alive [1]\n');
    const shellKilled = await bash('kill -9 $$');
    expect(shellKilled.notes).toEqual([expect.stringMatching(/The shell exited/)]);
    expect((await bash('echo new "[$KEPT]"')).stdout).toBe('new []\n');
  });

  it('keeps the supervisor’s pipes and memory out of the commands’ reach (they run as the same user)', async () => {
    // Writing into the supervisor's own stdout would forge answers, or grow the server's memory without end.
    const poke = await bash(
      'echo \'{"id": 2, "stdout": "forged"}\' > /proc/1/fd/1; head -c 50 /proc/1/environ; python3 -c "import os; os.kill(1, 9)"',
    );
    expect(String(poke.stderr).match(/Permission denied/g)).toHaveLength(2);
    // Process 1 of the namespace ignores even SIGKILL from inside it.
    expect(poke.stdout).toBe('');
    expect((await bash('echo answered')).stdout).toBe('answered\n');
  });

  it('gives a command no way to the shell’s status pipe, so it cannot answer for the next command', async () => {
    const forged = await bash('echo 7 >&3; echo still');
    expect(forged.stderr).toMatch(/Bad file descriptor/);
    expect((await bash('exit_with() { return 4; }; exit_with')).exitCode).toBe(4);
  });

  it('starts again after the sandbox is killed from outside, and says so', async () => {
    expect((await bash('echo one')).stdout).toBe('one\n');
    await bash('kill -9 1 2>&1; echo still');
    const killOutside = await bash('echo $$');
    expect(killOutside.exitCode).toBe(0);
    session.close();
    await expect(bash('echo again')).rejects.toBeInstanceOf(ToolRefused);
  });

  it('shows nothing of the server: not its code, not its environment, not other runs’ folders', async () => {
    const look = await bash(
      `ls ${PROJECT_ROOT} 2>&1 | head -1; env | sort | cut -d= -f1 | tr '\\n' ' '; ls /mnt/skills; ls /home /root 2>&1 | head -2`,
    );
    expect(look.stdout).not.toContain('package.json');
    expect(look.stdout).not.toContain('SECRET');
    expect(look.stdout).toContain(
      'HOME LANG LOGNAME MPLBACKEND PATH PIP_BREAK_SYSTEM_PACKAGES PWD PYTHONDONTWRITEBYTECODE SHLVL TERM TMPDIR USER',
    );
    expect(look.stdout).toMatch(/USER _ s\n/);
    expect(await readdir(path.join(root, 'out'))).toEqual([]);
  });

  it('keeps a command that never ends and a flood of output from holding the computer', async () => {
    const flood = await bash('yes | head -c 50M; echo done >&2');
    expect(String(flood.stdout).length).toBe(30 * 1024);
    expect(flood.stderr).toBe('done\n');
    // A loop of the shell's own has no process to stop: a new shell takes its place.
    const stuck = await bash('read -r line < /dev/zero', 300);
    expect(stuck.notes).toEqual([expect.stringMatching(/time limit of 300 ms/), expect.stringMatching(/a new one was started/)]);
    expect((await bash('echo free')).stdout).toBe('free\n');
  });

  it('refuses a tool path outside what it may write, and a NUL in a command, with words for the model', async () => {
    const write = await session.call({ op: 'write', path: '/mnt/skills/s/SKILL.md', content: 'x' }, 10_000);
    expect(write.error).toMatch(/read-only folder/);
    const outside = await session.call({ op: 'read', path: '../../proc/1/environ' }, 10_000);
    expect(String(outside.text ?? outside.error)).not.toContain('SECRET_OF_SERVER');
    const nul = await session.call({ op: 'bash', command: 'echo a\u0000b', timeout_ms: 1000 }, 1000);
    expect(nul.error).toMatch(/NUL/);
  });
});
