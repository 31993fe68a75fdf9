import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComputerSession } from '../../src/sandbox/computer/computer-session.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { runSkillScript } from '../../src/sandbox/script-sandbox.js';
import { DENIED_SYSCALLS, SECCOMP_FD, seccompProgram } from '../../src/sandbox/seccomp-filter.js';
import { SCRIPT_LIMITS } from '../helpers/sandbox.js';

const detected = await detectSandbox('auto');
/** SKILLET_TEST_NO_SECCOMP=1 runs the attempts without the filter, to see them succeed. */
const sandbox = process.env.SKILLET_TEST_NO_SECCOMP === '1' ? { ...detected, seccompFile: undefined } : detected;
const BWRAP = sandbox.kind === 'bwrap';

/**
 * Calls each system call by number through libc's syscall() with harmless arguments and prints
 * `name errno` (0: it went through). Without the filter, ptrace(PTRACE_TRACEME) and unshare(0)
 * succeed for any process, and keyctl and clock_gettime's neighbours answer with their own errors.
 */
const PROBE = `
import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
x64 = platform.machine() == 'x86_64'
calls = {
    'ptrace': (101 if x64 else 117, 0, 0, 0, 0),
    'unshare': (272 if x64 else 97, 0),
    'keyctl': (250 if x64 else 219, 0, -3, 0),
    'bpf': (321 if x64 else 280, 0, 0, 0),
    'userfaultfd': (323 if x64 else 282, 0),
    'mount': (165 if x64 else 40, 0, 0, 0, 0, 0),
    'clock_settime': (227 if x64 else 112, 0, 0),
    'init_module': (175 if x64 else 105, 0, 0, 0),
    'getpid': (39 if x64 else 172,),
}
for name, (number, *args) in calls.items():
    ctypes.set_errno(0)
    result = libc.syscall(number, *args)
    print(name, 0 if result >= 0 else ctypes.get_errno())
print('fds', ' '.join(sorted(os.listdir('/proc/self/fd'))))
`;

/** What the probe prints inside a sandbox with the filter: every listed call refused with EPERM (1), getpid through. */
function expectRefused(printed: string): void {
  const results = Object.fromEntries(
    printed
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('fds'))
      .map((line) => line.split(' ') as [string, string]),
  );
  expect(results).toEqual({
    ptrace: '1',
    unshare: '1',
    keyctl: '1',
    bpf: '1',
    userfaultfd: '1',
    mount: '1',
    clock_settime: '1',
    init_module: '1',
    getpid: '0',
  });
  // The program's descriptor is bubblewrap's to read, not the skill's to keep (others may be
  // inherited from whatever started the test).
  expect(/^fds (.*)$/m.exec(printed)?.[1]?.split(' ')).not.toContain(String(SECCOMP_FD));
}

describe('the seccomp program', () => {
  it('checks the architecture, refuses x32 and each listed call with EPERM, and allows the rest', () => {
    const program = seccompProgram('x64');
    if (!program) throw new Error('no program for x64');
    // Load arch, check it, refuse; load nr, the x32 check, one check per call, allow, refuse.
    expect(program.length).toBe(8 * (4 + 1 + DENIED_SYSCALLS.length + 2));
    expect(program.readUInt32LE(program.length - 12)).toBe(0x7fff0000);
    expect(program.readUInt32LE(program.length - 4)).toBe(0x00050001);
    expect(seccompProgram('arm64')?.length).toBe(8 * (4 + DENIED_SYSCALLS.length + 2));
    expect(seccompProgram('ia32')).toBeUndefined();
    expect(DENIED_SYSCALLS).toEqual(expect.arrayContaining(['ptrace', 'keyctl', 'bpf', 'userfaultfd', 'mount', 'unshare']));
  });
});

describe.runIf(BWRAP)('system calls a sandbox refuses', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'skillet-seccomp-'));
    await mkdir(path.join(root, 'skill', 'scripts'), { recursive: true });
    await mkdir(path.join(root, 'out'));
    await writeFile(path.join(root, 'skill', 'SKILL.md'), '---\nname: s\ndescription: d\n---\n');
    await writeFile(path.join(root, 'skill', 'scripts', 'probe.py'), PROBE);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('has a filter wherever bubblewrap runs on an architecture the list covers', () => {
    if (['x64', 'arm64'].includes(process.arch)) expect(detected.seccompFile).toMatch(/skillet-seccomp-[0-9a-f]{16}\.bpf$/);
  });

  it('in the computer: ptrace, unshare, keyctl, bpf, userfaultfd, mount, the clock and modules', async () => {
    const session = new ComputerSession({
      sandbox,
      folders: {
        skills: [{ slug: 's', dir: path.join(root, 'skill') }],
        outputDir: path.join(root, 'out'),
        space: { sandbox: 1024 * 1024 },
        uploadsDir: undefined,
        networkDir: undefined,
      },
      group: undefined,
      env: {},
    });
    try {
      const answer = await session.call(
        { op: 'bash', command: 'python3 /mnt/skills/s/scripts/probe.py', timeout_ms: 10_000 },
        10_000,
      );
      expectRefused(String(answer.stdout));
    } finally {
      session.close();
    }
  });

  it("in a skill's script (run_script)", async () => {
    const limits = { ...SCRIPT_LIMITS, builtIn: false };
    const request = {
      skillDir: path.join(root, 'skill'),
      scriptPath: 'scripts/probe.py',
      args: [],
      stdin: '',
      outputDir: path.join(root, 'out'),
    };
    const result = await runSkillScript(request, sandbox, limits, new AbortController().signal);
    expect(result.exitCode).toBe(0);
    expectRefused(result.stdout);
  });
});
