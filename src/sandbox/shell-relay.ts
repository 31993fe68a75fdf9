import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** A relayed command that exited non-zero, timed out, or lost its shell; `stderr` is what it printed (both streams). */
export class RelayedCommandFailed extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

interface Pending {
  command: string;
  output: string[];
  resolve(printed: string): void;
  reject(error: Error): void;
}

/** One argument, single-quoted for sh: nothing inside is expanded. */
export function shellQuote(arg: string): string {
  if (arg.includes('\0')) throw new Error('a command argument cannot hold a NUL byte');
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs short host commands (mount, umount) through one small shell started on first use,
 * one command at a time, in order. Node forks its own process for every child it spawns, and
 * forking a server of a few hundred megabytes held its event loop for 5-10 ms a command,
 * three commands a run; a shell of a few hundred kilobytes forks in a fraction of that, off
 * the server's thread. The shell ends when its stdin closes, so it never outlives the server,
 * however the server ends.
 */
export class ShellRelay {
  #shell: ChildProcessWithoutNullStreams | undefined;
  /** Ends each command's output: random, so no output can pass for it. */
  readonly #marker = `skillet-relay-${randomBytes(12).toString('hex')}`;
  readonly #pending: Pending[] = [];
  #partial = '';

  /** Runs one command; resolves once it exited 0. */
  async exec(file: string, args: string[], timeoutMs: number): Promise<void> {
    await this.run([file, ...args].map(shellQuote).join(' '), file, timeoutMs);
  }

  /**
   * Runs a line of shell (its words quoted by the caller with shellQuote) and resolves with
   * what it printed, once it exited 0. `name` stands for it in errors. A script given as a
   * function is written for the pid of the shell that runs it, the parent of what it starts.
   */
  run(script: string | ((shellPid: number) => string), name: string, timeoutMs: number): Promise<string> {
    const shell = this.#started();
    const line = typeof script === 'string' ? script : script(shell.pid ?? 0);
    return new Promise<string>((resolve, reject) => {
      // Holds the process open while the command runs, as the shell itself does not.
      const timer = setTimeout(() => this.#abandon(shell, `${name} took over ${timeoutMs} ms`), timeoutMs);
      this.#pending.push({
        command: name,
        output: [],
        resolve: (printed) => {
          clearTimeout(timer);
          resolve(printed);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      shell.stdin.write(`{ ${line}\n} </dev/null 2>&1; echo "${this.#marker} $?"\n`);
    });
  }

  #started(): ChildProcessWithoutNullStreams {
    if (this.#shell) return this.#shell;
    // A group of its own, so that giving up on a command kills what the shell started too.
    const shell = spawn('sh', ['-s'], {
      stdio: 'pipe',
      detached: true,
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    shell.stdout.setEncoding('utf8').on('data', (chunk: string) => this.#read(chunk));
    shell.stderr.resume();
    shell.stdin.on('error', () => undefined); // a shell that died is reported by 'exit'
    shell.once('exit', () => this.#abandon(shell, 'the shell running it exited'));
    // Waiting on commands holds the process open; an idle shell must not.
    shell.unref();
    for (const stream of [shell.stdin, shell.stdout, shell.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    this.#shell = shell;
    return shell;
  }

  #read(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      const head = this.#pending[0];
      if (!head) continue;
      if (!line.startsWith(`${this.#marker} `)) {
        head.output.push(line);
        continue;
      }
      this.#pending.shift();
      const code = Number(line.slice(this.#marker.length + 1));
      const printed = head.output.join('\n');
      if (code === 0) head.resolve(printed);
      else head.reject(new RelayedCommandFailed(`${head.command} exited with ${code}: ${printed}`, printed));
    }
  }

  /** Fails every command still waiting on `shell` and kills it; the next command starts a fresh one. */
  #abandon(shell: ChildProcessWithoutNullStreams, why: string): void {
    if (this.#shell !== shell) return;
    this.#shell = undefined;
    this.#partial = '';
    try {
      if (shell.pid !== undefined) process.kill(-shell.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
    for (const pending of this.#pending.splice(0)) {
      pending.reject(new RelayedCommandFailed(`${pending.command} did not finish: ${why}`, pending.output.join('\n')));
    }
  }
}

/** This process's relay for short commands: one shell, whoever mounts. */
export const shellRelay = new ShellRelay();

/**
 * The shell that starts this process's long-lived sandboxes (relayed-process.ts). It is their
 * parent, and a sandbox dies with its parent (bubblewrap's --die-with-parent), so it is kept
 * apart from `shellRelay`, whose shell is killed when a mount hangs.
 */
export const launchRelay = new ShellRelay();
