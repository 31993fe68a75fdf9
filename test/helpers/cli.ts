import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Settles with the exit code. */
  exited: Promise<number>;
  /** Settles once stdout or stderr contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

/** Runs the built `skillet` CLI as a child process with the given environment. */
export function runCli(buildDir: string, args: string[], env: NodeJS.ProcessEnv, stdin?: string): CliRun {
  const child = spawn(process.execPath, [path.join(buildDir, 'src/cli/main.js'), ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const watchers: (() => void)[] = [];
  const notify = () => {
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    notify();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    notify();
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  else child.stdin?.end();
  const exited = once(child, 'exit').then(([code]) => (code as number | null) ?? -1);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(text, timeoutMs = 15_000) {
      const seen = () => (typeof text === 'string' ? (out + err).includes(text) : text.test(out + err));
      return new Promise<void>((resolve, reject) => {
        if (seen()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${text}; got:\n${out}\n${err}`)), timeoutMs);
        const watcher = () => {
          if (!seen()) return;
          clearTimeout(timer);
          watchers.splice(watchers.indexOf(watcher), 1);
          resolve();
        };
        watchers.push(watcher);
      });
    },
  };
}
