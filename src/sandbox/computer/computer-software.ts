import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../paths.js';

/** The Python every skill script runs with, inside the sandbox and out: Debian's, where the listed packages install. */
export const SANDBOX_PYTHON = '/usr/bin/python3';

const execFileAsync = promisify(execFile);

/** Folders a listed command is looked for in, the sandbox's own PATH among them. */
const COMMAND_FOLDERS = ['/usr/bin', '/bin', '/usr/local/bin'];
/** Where the computer image installs npm packages, found by require() and import from any folder. */
export const GLOBAL_NODE_MODULES = '/usr/local/lib/node_modules';

/** How an entry is checked: a command on PATH, a Python module (at a version, when named), or a Node package. */
export type SoftwareCheck = { command: string } | { python: string; distribution?: string; min?: string } | { node: string };

/** One entry of computer/software.json: what a skill may count on, and the Debian or npm package that brings it. */
export interface SoftwareItem {
  provides: string;
  /** Debian packages, space-separated. */
  package?: string;
  /** npm packages installed globally in the image, space-separated. */
  npm?: string;
  /** Wanted where the operator installs it, never required of a host without the image. */
  optional?: boolean;
  check: SoftwareCheck;
}

export interface SoftwareStatus extends SoftwareItem {
  /** Found, at the version skills need. */
  present: boolean;
  /** The version found, where the check names one. */
  version?: string;
  /** Found, but older than `check.min`. */
  tooOld?: boolean;
}

/**
 * Where software is looked for. `root`: the folder that is `/` inside the computer (the host's
 * own `/`, or an image's root filesystem). `python`: how to start that system's Python. `nodeModules`:
 * whether global npm packages are shown to the computer (only the image has them).
 */
export interface SoftwareHost {
  root: string;
  python: readonly string[];
  nodeModules: boolean;
}

export const HOST_SOFTWARE: SoftwareHost = { root: '/', python: [SANDBOX_PYTHON], nodeModules: false };

/** The one list of what the computer has installed, which `.ci/run` and the image recipe install from. */
export const SOFTWARE_LIST = path.join(PROJECT_ROOT, 'computer', 'software.json');

export function readSoftwareList(file = SOFTWARE_LIST): SoftwareItem[] {
  return JSON.parse(readFileSync(file, 'utf8')) as SoftwareItem[];
}

type PythonCheck = Extract<SoftwareCheck, { python: string }>;

/**
 * For each Python module of `checks`: whether it imports (a version string where a distribution
 * is named, else true), or null. Asked in one run of Python, started, not waited for in place:
 * it takes about 20 ms to answer, which a synchronous start would take from every request.
 */
async function pythonModules(python: readonly string[], checks: PythonCheck[]): Promise<Record<string, string | boolean | null>> {
  const [command, ...args] = python;
  if (checks.length === 0 || !command || !existsSync(command)) return {};
  const probe = [
    'import importlib.util, importlib.metadata, json, sys',
    'found = {}',
    'for spec in sys.argv[1:]:',
    '    name, _, dist = spec.partition(":")',
    '    if importlib.util.find_spec(name) is None:',
    '        found[spec] = None',
    '        continue',
    '    try:',
    '        found[spec] = importlib.metadata.version(dist) if dist else True',
    '    except importlib.metadata.PackageNotFoundError:',
    '        found[spec] = True',
    'print(json.dumps(found))',
  ].join('\n');
  const specs = checks.map((check) => `${check.python}:${check.distribution ?? ''}`);
  try {
    const { stdout } = await execFileAsync(command, [...args, '-c', probe, ...specs], {
      encoding: 'utf8',
      timeout: 20_000,
      env: {},
    });
    return JSON.parse(stdout) as Record<string, string | boolean | null>;
  } catch {
    return {};
  }
}

/** Whether dotted version `found` is at least `min` (numbers compared part by part; a suffix such as "rc1" is ignored). */
export function versionAtLeast(found: string, min: string): boolean {
  const parts = (version: string) => version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const [have, need] = [parts(found), parts(min)];
  for (let at = 0; at < Math.max(have.length, need.length); at++) {
    const difference = (have[at] ?? 0) - (need[at] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

/** A path under `root` exists as a file or a link (a link's target is the computer's, not the host's, to resolve). */
function existsUnder(root: string, file: string): boolean {
  return lstatSync(path.join(root, file), { throwIfNoEntry: false }) !== undefined;
}

function nodePackageVersion(root: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, GLOBAL_NODE_MODULES, name, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version ?? '';
  } catch {
    return undefined;
  }
}

/** Which of `items` the computer has: commands on its PATH, modules its Python imports, Node packages it finds. */
export async function inspectSoftware(items: SoftwareItem[], host: SoftwareHost = HOST_SOFTWARE): Promise<SoftwareStatus[]> {
  const pythonChecks = items.flatMap((item) => ('python' in item.check ? [item.check] : []));
  const modules = await pythonModules(host.python, pythonChecks);
  return items.map((item): SoftwareStatus => {
    const { check } = item;
    if ('command' in check) {
      return { ...item, present: COMMAND_FOLDERS.some((folder) => existsUnder(host.root, path.join(folder, check.command))) };
    }
    if ('node' in check) {
      const version = host.nodeModules ? nodePackageVersion(host.root, check.node) : undefined;
      return { ...item, present: version !== undefined, ...(version ? { version } : {}) };
    }
    const found = modules[`${check.python}:${check.distribution ?? ''}`];
    if (found === undefined || found === null) return { ...item, present: false };
    if (typeof found !== 'string') return { ...item, present: true };
    const tooOld = check.min !== undefined && !versionAtLeast(found, check.min);
    return { ...item, present: !tooOld, version: found, ...(tooOld ? { tooOld } : {}) };
  });
}
