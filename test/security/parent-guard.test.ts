import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Command, launchCommand } from '../../src/sandbox/launch-command.js';
import { detectSandbox, namespaceArgs } from '../../src/sandbox/sandbox.js';
import { BUBBLEWRAP_HERE } from '../helpers/sandbox.js';

/**
 * A sandbox dies with the server that started it, including a server killed while the
 * sandbox was still starting: the moment bubblewrap's own --die-with-parent does not cover.
 * Each test starts a go-between parent that starts the command and exits, as a server
 * killed outright would, and then looks for what is left running.
 */
const here = await detectSandbox('auto');
const SETPRIV = here.setpriv;
const PARENT_PID = 424242;

let root: string;
/** setpriv behind a pause: the parent is surely gone before the signal is set. */
let slowSetpriv: string;
const strays: number[] = [];

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-guard-'));
  slowSetpriv = path.join(root, 'slow-setpriv');
  await writeFile(slowSetpriv, `#!/bin/sh\nsleep 0.3\nexec ${SETPRIV} "$@"\n`);
  await chmod(slowSetpriv, 0o755);
});
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The pids of every process whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const line = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (line.includes(marker)) found.push(Number(entry));
  }
  return found;
}

/**
 * Starts a parent that spawns `command` (with the parent's pid put for PARENT_PID in its
 * arguments), waits `lingerMs`, and exits without a word to its child; `exited` settles then.
 */
function startThenDie(command: Command, lingerMs: number): { exited: Promise<unknown> } {
  const script = `
    const { spawn } = require('node:child_process');
    const [file, ...args] = JSON.parse(process.argv[1]).map((word) => word === '${PARENT_PID}' ? String(process.pid) : word);
    spawn(file, args, { stdio: ['pipe', 'ignore', 'ignore'], env: {} });
    setTimeout(() => process.exit(0), ${lingerMs});
  `;
  const parent = spawn(process.execPath, ['-e', script, JSON.stringify([command.file, ...command.args])], { stdio: 'ignore' });
  return { exited: new Promise((resolve) => parent.once('exit', resolve)) };
}

/** `command` after a pause, so that its parent is gone before it runs. */
const slowly = (command: Command): Command => ({
  file: '/bin/sh',
  args: ['-c', 'sleep 0.3; exec "$@"', 'sh', command.file, ...command.args],
});

/**
 * Starts `make(marker)` twice from a parent that dies at once, each time behind a pause:
 * unguarded it runs on with no parent (the window the guard closes), guarded it never runs.
 */
async function runsOnlyUnguarded(make: (marker: string) => Command, settleMs: number): Promise<void> {
  const bare = `skillet-bare-${randomUUID()}`;
  await startThenDie(slowly(make(bare)), 0).exited;
  await expect.poll(() => processesWith(bare), { timeout: 5_000 }).not.toEqual([]);
  strays.push(...(await processesWith(bare)));

  const marker = `skillet-guarded-${randomUUID()}`;
  await startThenDie(guarded(make(marker), slowSetpriv), 0).exited;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  expect(await processesWith(marker)).toEqual([]);
}

/** A process that would run for a minute, found again by `marker`. */
const sleeper = (marker: string): Command => ({ file: '/bin/sh', args: ['-c', `sleep 60; : ${marker}`] });

const guarded = (command: Command, setpriv: string) => launchCommand(command, { guard: { setpriv, parentPid: PARENT_PID } });

describe.runIf(SETPRIV)('a process started with the parent guard', () => {
  it('does not start when its parent was gone before the guard took hold, where an unguarded one runs on', async () => {
    await runsOnlyUnguarded(sleeper, 800);
  });

  it('dies with its parent once started', async () => {
    const marker = `skillet-guarded-${randomUUID()}`;
    const parent = startThenDie(guarded(sleeper(marker), SETPRIV as string), 1_500);
    await expect.poll(() => processesWith(marker), { timeout: 3_000 }).not.toEqual([]);
    await parent.exited;
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });

  it('runs its command with the arguments it was given, untouched', async () => {
    const file = path.join(root, `said-${randomUUID()}`);
    const command = launchCommand(
      { file: '/bin/sh', args: ['-c', 'printf "%s|" "$@" > "$0"', file, 'a b', "it's", '$HOME'] },
      { guard: { setpriv: SETPRIV as string, parentPid: process.pid } },
    );
    const child = spawn(command.file, command.args, { stdio: 'ignore' });
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    expect(await readFile(file, 'utf8')).toBe("a b|it's|$HOME|");
  });
});

describe.runIf(SETPRIV && BUBBLEWRAP_HERE)('a sandbox whose server dies while it starts', () => {
  /** Node idling in the sandbox, its stdin unread: nothing but the parent's death can end it. */
  const inSandbox = (marker: string): Command => ({
    file: here.bwrapPath as string,
    args: [...namespaceArgs(here.runtimeFiles, [], []), process.execPath, '-e', 'setInterval(() => {}, 1000)', marker],
  });

  it('never runs, where bubblewrap alone would run on with no parent', async () => {
    await runsOnlyUnguarded(inSandbox, 1_000);
  });

  it('dies with its server once started, every process of it', async () => {
    const marker = `skillet-guarded-${randomUUID()}`;
    const parent = startThenDie(guarded(inSandbox(marker), SETPRIV as string), 2_500);
    // bubblewrap's own process and the sandbox's init, besides Node itself.
    await expect.poll(async () => (await processesWith(marker)).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
    await parent.exited;
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});
