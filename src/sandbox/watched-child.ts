import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { CgroupHost, GroupLimits, LimitBreach, RunGroup } from '../ports/sandbox.js';
import { type Command, launchCommand } from './launch-command.js';
import { type RunLimits, SkillRefused } from './types.js';
import { killTree, type WatchedLimits, watchRun } from './watchdog.js';

const MIB = 1024 * 1024;

/** What the watchdog checks for one run's limits, with the folder it writes into. */
export function watchedLimits(limits: RunLimits, outputDir: string): WatchedLimits {
  return {
    memoryBytes: limits.memoryMb * MIB,
    cpuSeconds: limits.cpuSeconds,
    processes: limits.processLimit,
    outputDir,
    outputBytes: limits.outputLimitBytes,
    outputFiles: limits.outputFileLimit,
  };
}

/** What the kernel holds a run's group to, from the run's limits. */
export function groupLimits(limits: RunLimits): GroupLimits {
  return { memoryBytes: limits.memoryMb * MIB, processes: limits.processLimit, cpuSeconds: limits.cpuSeconds };
}

/**
 * The group one run's processes all start in, when the server has cgroup control. A group
 * that cannot be made is the service's failure: the run is refused rather than left unheld.
 */
export async function openRunGroup(host: CgroupHost | undefined, limits: RunLimits): Promise<RunGroup | undefined> {
  if (!host) return undefined;
  try {
    return await host.create(groupLimits(limits));
  } catch (error) {
    throw new SkillRefused(`this server could not set up the limits of a run (${(error as Error).message}); try again`);
  }
}

/**
 * prlimit's hard limits ahead of a command: data segment, CPU time (SIGXCPU at the limit,
 * SIGKILL a second later for a child that catches it), file size, and no core dumps.
 */
export function prlimitArgs(limits: Pick<RunLimits, 'cpuSeconds' | 'outputLimitBytes'>, dataBytes: number): string[] {
  return [
    `--data=${dataBytes}`,
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--fsize=${limits.outputLimitBytes}`,
    '--core=0',
  ];
}

/** The signal that ended a child: bubblewrap exits with 128 + its child's signal, as a shell does. */
export function signalOfExit(code: number | null, signal: NodeJS.Signals | null, inBwrap: boolean): NodeJS.Signals | null {
  if (signal || !inBwrap || code === null || code <= 128) return signal;
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return (name as NodeJS.Signals | undefined) ?? null;
}

/** A spawned child under its time limit and the watchdog; the first reason it was killed for is kept. */
export interface WatchedChild<Why> {
  readonly child: ChildProcessWithoutNullStreams;
  readonly killedFor: Why | undefined;
  /** Kills the child's whole tree (and its process group, when it has one of its own). */
  kill(why: Why): void;
  /** Stops the time limit and the watchdog, once the child is gone. */
  unwatch(): void;
}

export interface WatchOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A process group of its own, so a kill also reaches what an unsandboxed child started. */
  detached?: boolean;
  timeoutMs: number;
  watched: WatchedLimits;
  /** The run's control group, when the server has cgroup control: the child starts inside it. */
  group?: RunGroup;
  /** setpriv's path, when the sandbox found it: the child then dies with this server from its start. */
  setpriv?: string | undefined;
  /** The sandbox's seccomp program, opened for bubblewrap's --seccomp (seccomp-filter.ts). */
  seccompFile?: string | undefined;
}

/**
 * Spawns a child confined by its command line and watches it: killed at `timeoutMs` and at
 * the first limit the watchdog sees broken. `reasons` turn those into the caller's own
 * account, and are asked only when nothing had killed the child yet.
 */
export function spawnWatched<Why>(
  command: Command,
  options: WatchOptions,
  reasons: { timedOut(): Why; breached(breach: LimitBreach): Why },
): WatchedChild<Why> {
  return watchChild(spawnInGroup(command, options), options, reasons);
}

/** Spawns `command` inside the run's group when there is one, tied to this process, not yet watched. */
export function spawnInGroup(
  command: Command,
  options: Pick<WatchOptions, 'cwd' | 'env' | 'detached' | 'group' | 'setpriv' | 'seccompFile'>,
): ChildProcessWithoutNullStreams {
  const guard = options.setpriv ? { setpriv: options.setpriv, parentPid: process.pid } : undefined;
  const { file, args } = launchCommand(command, {
    procsFiles: options.group?.procsFiles,
    guard,
    seccompFile: options.seccompFile,
  });
  return spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.detached ? { detached: true } : {}),
  });
}

/**
 * Watches a child from now on: killed at `timeoutMs` and at the first limit the watchdog
 * sees broken (a warm sandbox's child is spawned ahead and watched once a run takes it).
 */
export function watchChild<Why>(
  child: ChildProcessWithoutNullStreams,
  options: WatchOptions,
  reasons: { timedOut(): Why; breached(breach: LimitBreach): Why },
): WatchedChild<Why> {
  let killedFor: Why | undefined;
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  const kill = (why: Why) => {
    killedFor ??= why;
    // bubblewrap's processes start sessions of their own, out of the group's reach.
    killTree(child);
    if (options.detached) killGroup();
    void options.group?.kill();
  };
  const timer = setTimeout(() => kill(killedFor ?? reasons.timedOut()), options.timeoutMs);
  const stopWatching = child.pid
    ? watchRun(child.pid, options.watched, (breach) => kill(killedFor ?? reasons.breached(breach)), options.group)
    : () => undefined;
  // A detached child's leftover processes would hold the pipes open; bubblewrap's die with it anyway.
  if (options.detached) child.once('exit', killGroup);
  return {
    child,
    get killedFor() {
      return killedFor;
    },
    kill,
    unwatch() {
      clearTimeout(timer);
      stopWatching();
    },
  };
}
