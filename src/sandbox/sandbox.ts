import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, type SandboxSetting } from '../config.js';
import type { CgroupHost, SkillSandbox, SpaceHost } from '../ports/sandbox.js';
import { detectCgroups, GRANT_CGROUPS_HINT } from './cgroup-detection.js';
import { launchCommand } from './launch-command.js';
import { detectBoundedSpace } from './run-space.js';
import { seccompArgs, seccompFile } from './seccomp-filter.js';

const run = promisify(execFile);

/** Node's permission model alone, for built-in skills only: what a context gets by default. */
export const BUILT_INS_ONLY: SkillSandbox = {
  kind: 'permissions',
  runsUntrusted: false,
  runtimeFiles: [],
  prlimit: undefined,
  setpriv: undefined,
  warning: undefined,
  bwrapPath: undefined,
  cgroups: undefined,
  boundedSpace: undefined,
};

export const ENABLE_SANDBOX_HINT =
  'install bubblewrap (Debian: apt-get install bubblewrap) and allow unprivileged user namespaces, ' +
  'or set SKILL_SANDBOX=none to run such skills without a sandbox';

async function locate(command: string): Promise<string | undefined> {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin', '/sbin']) {
    const candidate = path.join(dir, command);
    try {
      await run(candidate, ['--version'], { timeout: 5000 });
      return candidate;
    } catch {
      // not here (or not runnable): try the next folder
    }
  }
  return undefined;
}

/** setpriv, when it is there and knows --pdeathsig (util-linux 2.33, 2018). */
async function locateSetpriv(): Promise<string | undefined> {
  const setpriv = await locate('setpriv');
  if (!setpriv) return undefined;
  try {
    await run(setpriv, ['--pdeathsig', 'KILL', '--', 'true'], { timeout: 5000 });
    return setpriv;
  } catch {
    return undefined;
  }
}

/** The Node binary and every library `ldd` says it loads (none for a static build). */
async function nodeRuntimeFiles(): Promise<string[]> {
  const node = realpathSync(process.execPath);
  const files = new Set([node]);
  try {
    const { stdout } = await run('ldd', [node], { timeout: 5000 });
    for (const match of stdout.matchAll(/(\/\S+)\s+\(0x/g)) {
      if (match[1]) files.add(match[1]);
    }
  } catch {
    // ldd exits 1 on a static binary: there is nothing more to bind
  }
  return [...files];
}

/**
 * Starts `node -e ''` inside the sandbox exactly as a skill would be, with the seccomp
 * program when one is given: proof it works here (undefined), or bubblewrap's first words why not.
 */
async function bubblewrapWorks(bwrap: string, runtimeFiles: string[], seccomp?: string): Promise<string | undefined> {
  const node = realpathSync(process.execPath);
  const command = launchCommand(
    { file: bwrap, args: [...seccompArgs(seccomp), ...namespaceArgs(runtimeFiles, [], []), node, '-e', ''] },
    { seccompFile: seccomp },
  );
  try {
    await run(command.file, command.args, { timeout: 10_000, env: {} });
    return undefined;
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return detail.split('\n')[0];
  }
}

/** The seccomp program, when bubblewrap installs it here; else undefined and why. */
async function workingSeccomp(bwrap: string, runtimeFiles: string[]): Promise<{ file?: string; refused?: string }> {
  const file = seccompFile();
  if (!file) return { refused: `no seccomp program is written for ${process.arch}` };
  const refused = await bubblewrapWorks(bwrap, runtimeFiles, file);
  return refused ? { refused } : { file };
}

/**
 * bubblewrap's arguments up to the command: namespaces, and the only paths the skill sees.
 * `mounts` are folders shown read only at another path, after the writable binds so that
 * one may sit inside a writable folder (a run's uploads inside its output folder).
 */
export function namespaceArgs(
  runtimeFiles: string[],
  readOnly: string[],
  writable: string[],
  mounts: { source: string; target: string }[] = [],
): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--disable-userns',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'skillet-sandbox',
    '--die-with-parent',
    '--new-session',
    '--proc',
    '/proc',
    // A minimal /dev: its devices, read only, and a bounded /dev/shm of its own (bubblewrap's
    // own /dev is a tmpfs without a size, which a run could fill with the host's memory).
    '--dev',
    '/dev',
    '--remount-ro',
    '/dev',
    '--size',
    String(SHM_BYTES),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(TMP_BYTES),
    '--tmpfs',
    '/tmp',
  ];
  for (const file of [...runtimeFiles, ...readOnly]) args.push('--ro-bind', file, file);
  for (const dir of writable) args.push('--bind', dir, dir);
  for (const mount of mounts) args.push('--ro-bind', mount.source, mount.target);
  // The root bubblewrap builds is a tmpfs: read-only, so nothing is written outside the binds.
  args.push('--remount-ro', '/');
  return args;
}

/** The sandbox's private /tmp: memory-backed, so kept small. */
const TMP_BYTES = 16 * 1024 * 1024;
/** The sandbox's /dev/shm, for POSIX shared memory and semaphores: memory-backed as well. */
const SHM_BYTES = 16 * 1024 * 1024;

/** What this machine offers: bwrap (and why it cannot be used, if so), prlimit, Node's files, cgroup control. */
export interface SandboxProbe {
  bwrap: string | undefined;
  failure: string | undefined;
  runtimeFiles: string[];
  prlimit: string | undefined;
  setpriv: string | undefined;
  cgroups: CgroupHost | undefined;
  /** Why there is no cgroup control, when there is none. */
  noCgroups: string | undefined;
  boundedSpace: SpaceHost | undefined;
  /** Why run folders cannot be bounded, when they cannot. */
  noBoundedSpace: string | undefined;
  /** The seccomp program bubblewrap installed in the probe, or why it did not. */
  seccomp: { file?: string; refused?: string };
}

let detected: Promise<SandboxProbe> | undefined;

/** Probes once per process: bwrap, whether it can build a namespace here, prlimit, and cgroup control. */
function probeMachine(): Promise<SandboxProbe> {
  detected ??= (async () => {
    const [bwrap, prlimit, setpriv, mount, umount, runtimeFiles, groups] = await Promise.all([
      locate('bwrap'),
      locate('prlimit'),
      locateSetpriv(),
      locate('mount'),
      locate('umount'),
      nodeRuntimeFiles(),
      detectCgroups(),
    ]);
    const failure = bwrap ? await bubblewrapWorks(bwrap, runtimeFiles) : 'bwrap is not installed';
    const seccomp = bwrap && !failure ? await workingSeccomp(bwrap, runtimeFiles) : {};
    const space = await detectBoundedSpace(mount, umount);
    return {
      bwrap,
      failure,
      runtimeFiles,
      prlimit,
      setpriv,
      cgroups: groups.host,
      noCgroups: groups.reason,
      boundedSpace: space.host,
      noBoundedSpace: space.reason,
      seccomp,
    };
  })();
  return detected;
}

/** Decides how skills run on this server; throws when SKILL_SANDBOX=bwrap cannot be honoured. */
export async function detectSandbox(setting: SandboxSetting, probe = probeMachine): Promise<SkillSandbox> {
  const found = await probe();
  const base = {
    runtimeFiles: found.runtimeFiles,
    prlimit: found.prlimit,
    setpriv: found.setpriv,
    cgroups: found.cgroups,
    boundedSpace: found.boundedSpace,
  };
  const weakerLimits = [
    found.prlimit ? '' : ' prlimit (util-linux) is missing too, so memory and CPU are held by a watchdog alone.',
    found.cgroups
      ? ''
      : ` Without cgroup control (${found.noCgroups}), a run's memory, processes and CPU are watched rather than held by the kernel; to grant it, ${GRANT_CGROUPS_HINT}.`,
    found.boundedSpace
      ? ''
      : ` Without the right to mount (${found.noBoundedSpace}), a run's output folder is checked by looking at its files, which misses deleted files a run keeps open; to bound it, run the server as root or give it CAP_SYS_ADMIN (see docs/operations.md).`,
  ].join('');
  if (setting === 'none') {
    return {
      ...base,
      kind: 'permissions',
      runsUntrusted: true,
      bwrapPath: undefined,
      warning: `SKILL_SANDBOX=none: every skill, including installed ones, runs on Node's permission model alone, with the network and this server's processes in reach.${weakerLimits}`,
    };
  }
  if (found.bwrap && !found.failure) {
    const noSeccomp = found.seccomp.refused
      ? ` bubblewrap refused the seccomp filter (${found.seccomp.refused}), so sandboxes run without it: the namespaces still hold, but calls such as ptrace and keyctl are refused by them alone.`
      : '';
    return {
      ...base,
      kind: 'bwrap',
      runsUntrusted: true,
      bwrapPath: found.bwrap,
      seccompFile: found.seccomp.file,
      warning: `${weakerLimits}${noSeccomp}`.trim() || undefined,
    };
  }
  if (setting === 'bwrap') throw new ConfigError(`SKILL_SANDBOX=bwrap, but the sandbox cannot start: ${found.failure}`);
  return {
    ...base,
    kind: 'permissions',
    runsUntrusted: false,
    bwrapPath: undefined,
    warning: `The skill sandbox is unavailable (${found.failure}): built-in skills run on Node's permission model alone, and installed skills are refused. To enable it, ${ENABLE_SANDBOX_HINT}.${weakerLimits}`,
  };
}
