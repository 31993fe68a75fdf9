import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** One ```sh block of the README, with the bold step (`**6. Run a skill…**`) or heading before it. */
export interface ReadmeBlock {
  code: string;
  step: string;
}

/** The README's shell blocks between two headings, in order. */
export function shellBlocks(readme: string, fromHeading: string, toHeading: string): ReadmeBlock[] {
  const start = readme.indexOf(`\n## ${fromHeading}\n`);
  const end = readme.indexOf(`\n## ${toHeading}\n`, start + 1);
  if (start < 0 || end < 0) throw new Error(`the README has no section "${fromHeading}" followed by "${toHeading}"`);
  const section = readme.slice(start, end);
  const blocks: ReadmeBlock[] = [];
  let step = fromHeading;
  const pattern = /\*\*(\d+)\.[^*]*\*\*|```sh\n([\s\S]*?)```/g;
  for (const match of section.matchAll(pattern)) {
    if (match[1] !== undefined) step = match[1];
    else blocks.push({ code: match[2] ?? '', step });
  }
  return blocks;
}

/** A block's lines joined across trailing backslashes, without comments after `  # `. */
export function commandLines(code: string): string[] {
  return code
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '');
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a shell script to its end (or kills it after `timeoutMs`), collecting its output. */
export async function bash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Finished> {
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A long-running command (the server, a receiver) in a process group of its own, stopped by `stop`. */
export interface Background {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export function background(command: string, cwd: string, env: NodeJS.ProcessEnv): Background {
  const child = spawn('bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = once(child, 'exit');
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // npm start runs node under sh under npm: the whole group goes, as Ctrl-C would.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
      const forced = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 20_000);
      await exited;
      // npm may end before the server under it has closed its port: wait for the whole group.
      while (child.pid !== undefined && groupAlive(child.pid)) await new Promise((resolve) => setTimeout(resolve, 100));
      clearTimeout(forced);
    },
  };
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 200 ms until it holds, or fails after `timeoutMs` saying what it waited for. */
export async function until(what: string | (() => string), check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}
