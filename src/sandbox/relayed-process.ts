import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Command, launchCommand } from './launch-command.js';
import { launchRelay, shellQuote } from './shell-relay.js';

/** How long the launching shell may take to make the pipes and start the process. */
const LAUNCH_TIMEOUT_MS = 15_000;

/** A long-lived process started by the launch relay, talking over named pipes. */
export interface RelayedProcess {
  readonly pid: number;
  /** Its standard input. */
  readonly stdin: Socket;
  /** Its standard output. */
  readonly stdout: Socket;
  /**
   * Settles once its standard output has closed (the process has ended, and so has anything
   * it started that held the pipe: in a sandbox with a PID namespace, everything inside) and
   * its pipes' folder is gone.
   */
  readonly exited: Promise<void>;
  /** Whether its standard output has closed. */
  readonly ended: boolean;
  /** SIGKILLs it, unless it has ended (its PID may be someone else's by then). */
  kill(): void;
}

/**
 * Starts `command` with exactly `env`, its standard error discarded, through the launch
 * relay (shell-relay.ts) rather than as a child of this process: Node forks the whole server
 * to start a child, which held the event loop 7-14 ms a start on a server of a few hundred
 * megabytes, while the relay's shell forks in a fraction of that on its own thread. The
 * process gets a session of its own, so nothing done to the relay's process group reaches it.
 *
 * Its standard streams are named pipes in a private folder, removed once the process has
 * opened them. This side opens the input read-write and the output read-only without
 * waiting: neither open blocks, the process's own opens find their other end, and Linux
 * reports the output's end only after a writer has come and gone.
 */
export async function startRelayed(
  command: Command,
  env: Record<string, string>,
  how: { procsFiles?: readonly string[] | undefined; setpriv?: string | undefined; seccompFile?: string | undefined } = {},
): Promise<RelayedProcess> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-pipes-'));
  const input = path.join(dir, 'in');
  const output = path.join(dir, 'out');
  const settings = Object.entries(env).map(([name, value]) => shellQuote(`${name}=${value}`));
  // The launch shell is the process's parent: it dies with that shell, which ends with this server.
  const script = (shellPid: number) => {
    const guard = how.setpriv ? { setpriv: how.setpriv, parentPid: shellPid } : undefined;
    const launched = launchCommand(command, { procsFiles: how.procsFiles, guard, seccompFile: how.seccompFile });
    const words = ['setsid', 'env', '-i', ...settings, launched.file, ...launched.args.map(shellQuote)];
    // `jobs` first: the shell keeps a record of each process it started until asked about them.
    return (
      `jobs >/dev/null; mkfifo -m 600 ${shellQuote(input)} ${shellQuote(output)} && ` +
      `{ ${words.join(' ')} <${shellQuote(input)} >${shellQuote(output)} 2>/dev/null & echo "$!"; }`
    );
  };
  let pid: number;
  try {
    pid = Number((await launchRelay.run(script, command.file, LAUNCH_TIMEOUT_MS)).trim().split('\n').at(-1));
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${command.file} did not start`);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const stdin = new Socket({ fd: openSync(input, constants.O_RDWR | constants.O_NONBLOCK), readable: false, writable: true });
  const stdout = new Socket({ fd: openSync(output, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
  let ended = false;
  const removePipes = () => rm(dir, { recursive: true, force: true });
  // Its first output means it has opened both pipes (the input first): the names can go.
  stdout.once('data', () => void removePipes());
  const exited = new Promise<void>((resolve) => {
    stdout.once('close', () => {
      ended = true;
      stdin.destroy();
      void removePipes().finally(resolve);
    });
  });
  stdout.on('error', () => stdout.destroy());
  stdin.on('error', () => undefined); // a process gone is reported by `exited`
  return {
    pid,
    stdin,
    stdout,
    exited,
    get ended() {
      return ended;
    },
    kill() {
      if (ended) return;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      // Killed before it opened its output, it never will, and Linux reports no end to a pipe
      // no writer has come to: one comes and goes here, so the end is seen all the same.
      // (Once it has opened it, the name is gone, or its own end follows this one's.)
      try {
        closeSync(openSync(output, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // Removed: it opened its output, whose end it reports itself.
      }
    },
  };
}
