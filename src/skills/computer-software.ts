import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../paths.js';

/** The Python every skill script runs with, inside the sandbox and out: Debian's, where the listed packages install. */
export const SANDBOX_PYTHON = '/usr/bin/python3';

const execFileAsync = promisify(execFile);

/** Folders a listed command is looked for in, the sandbox's own PATH among them. */
const COMMAND_FOLDERS = ['/usr/bin', '/bin', '/usr/local/bin'];

/** One entry of computer/software.json: what a skill may count on, and the Debian package that brings it. */
export interface SoftwareItem {
  provides: string;
  package: string;
  /** Wanted where the operator installs it, never required (LibreOffice). */
  optional?: boolean;
  check: { command: string } | { python: string };
}

export interface SoftwareStatus extends SoftwareItem {
  present: boolean;
}

/** The one list of what the computer has installed, which `.ci/run` also installs from. */
export const SOFTWARE_LIST = path.join(PROJECT_ROOT, 'computer', 'software.json');

export function readSoftwareList(file = SOFTWARE_LIST): SoftwareItem[] {
  return JSON.parse(readFileSync(file, 'utf8')) as SoftwareItem[];
}

/**
 * Python modules of `names` that `python` can import, asked in one run of it. Started, not
 * waited for in place: Python takes about 20 ms to answer, which a synchronous start would
 * take from every request the server is answering meanwhile.
 */
async function importableModules(python: string, names: string[]): Promise<Set<string>> {
  if (names.length === 0 || !existsSync(python)) return new Set();
  const probe = [
    'import importlib.util, json, sys',
    'print(json.dumps([n for n in sys.argv[1:] if importlib.util.find_spec(n) is not None]))',
  ].join('\n');
  try {
    const { stdout } = await execFileAsync(python, ['-c', probe, ...names], { encoding: 'utf8', timeout: 20_000, env: {} });
    return new Set(JSON.parse(stdout) as string[]);
  } catch {
    return new Set();
  }
}

/** Which of `items` this host has: a command on the sandbox's PATH, or a module its Python imports. */
export async function inspectSoftware(items: SoftwareItem[], python = SANDBOX_PYTHON): Promise<SoftwareStatus[]> {
  const modules = items.flatMap((item) => ('python' in item.check ? [item.check.python] : []));
  const importable = await importableModules(python, modules);
  return items.map((item) => {
    const { check } = item;
    const present =
      'python' in check
        ? importable.has(check.python)
        : COMMAND_FOLDERS.some((folder) => existsSync(path.join(folder, check.command)));
    return { ...item, present };
  });
}
