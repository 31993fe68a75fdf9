import type { RunUploads } from './runs.js';
import type { Skill } from './skills.js';

/*
 * What confines a skill's processes (DESIGN §8, §14), as the parts that run skills see it:
 * sandbox/ implements all of it, and the warm pools of runtime/ start sandboxes ahead of need.
 */

/** The first limit a run went over, as the watchdog or the kernel's counters saw it. */
export type LimitBreach =
  | { limit: 'memory'; bytes: number }
  | { limit: 'cpu'; seconds: number }
  | { limit: 'processes'; count: number }
  | { limit: 'output-bytes'; bytes: number }
  | { limit: 'output-files'; count: number };

/** What clearing a dead server's run groups did: groups removed, and sandboxes found still running in them. */
export interface LeftoverGroups {
  removed: number;
  stopped: number;
}

/** What the kernel holds one run to, across every process and tool call of the run. */
export interface GroupLimits {
  memoryBytes: number;
  processes: number;
  cpuSeconds: number;
}

/**
 * One run's control group (DESIGN §8, §14): memory of every kind the kernel charges (tmpfs,
 * shared memory and socket buffers included), a hard cap on processes, and CPU counted for
 * the run as a whole. The kernel enforces memory and processes as they happen; reading the
 * group's counters costs the same however much the run does.
 */
export interface RunGroup {
  /** The files a process writes its pid into to join the group (launch-command.ts starts a run's first process so). */
  readonly procsFiles: readonly string[];
  /**
   * The first limit the kernel enforced (or the CPU the run has used past its budget), read
   * from the counters. Memory counts only kills not yet answered (`answerMemoryKills`); with
   * `memory: false` not at all, for a computer, where a kill stops one command, not the run.
   */
  breach(options?: { memory: boolean }): Promise<LimitBreach | undefined>;
  /**
   * Processes the kernel killed for passing the memory limit since the last answer, now
   * answered: a computer's tool call tells the model of them and the run goes on.
   */
  answerMemoryKills(): Promise<number>;
  /** Kills every process in the group and waits until none is left. */
  kill(): Promise<void>;
  /** Kills whatever is left, then removes the group. */
  remove(): Promise<void>;
}

/** Where this server makes run groups: cgroup v2, or the v1 memory, pids and cpuacct controllers. */
export interface CgroupHost {
  readonly version: 1 | 2;
  create(limits: GroupLimits): Promise<RunGroup>;
  /**
   * Removes the run groups of servers no longer running (killed outright), first stopping any
   * sandbox still in one: one caught starting as its server died can outlive it (below).
   */
  clearLeftovers(): Promise<LeftoverGroups>;
}

/** A folder a run writes into; `release` unmounts it (when bounded) and removes it with everything in it. */
export interface BoundedFolder {
  dir: string;
  /** Whether the kernel holds it to its limits (a tmpfs of its own), rather than a watch of the folder. */
  bounded: boolean;
  release(): Promise<void>;
}

/** The commands this server mounts and unmounts with, found where it may mount. */
export interface SpaceHost {
  readonly mount: string;
  readonly umount: string;
}

/** A built computer image (src/sandbox/computer/computer-image.ts): a root filesystem the computer runs on as `/`. */
export interface ComputerImage {
  /** The image's root filesystem on the host, resolved at start: a running server keeps the version it started with. */
  root: string;
  /** The recipe version it was built from (computer-image-recipe.ts). */
  version: string;
  builtAt: string;
}

/**
 * How this server confines skills.
 * - `bwrap`: bubblewrap namespaces (no network, own PIDs, read-only view of exactly what a
 *   skill may read) around Node's permission model. Every skill runs.
 * - `permissions`: Node's permission model alone. Only built-in skills run, unless the
 *   operator opted out of the sandbox with SKILL_SANDBOX=none (`unconfined` then).
 */
export interface SkillSandbox {
  kind: 'bwrap' | 'permissions';
  /** Skills that are not built in may run (true with bwrap, or with SKILL_SANDBOX=none). */
  runsUntrusted: boolean;
  /** Absolute paths of the Node binary and the shared libraries it loads, bound read-only. */
  runtimeFiles: string[];
  /** prlimit's path when present: the hard resource limits that hold without a watchdog. */
  prlimit: string | undefined;
  /** setpriv's path when it can set a parent-death signal: a sandbox is then tied to the server from its start (launch-command.ts). */
  setpriv: string | undefined;
  /** Said loudly at start when the sandbox is weaker than it should be. */
  warning: string | undefined;
  /** bwrap's path, when kind is bwrap. */
  bwrapPath: string | undefined;
  /** Where run groups are made, when this server has cgroup control: the kernel then holds memory, processes and CPU per run. */
  cgroups: CgroupHost | undefined;
  /** How run folders are mounted as tmpfs of their own size, when this server can mount: the kernel then bounds what a run writes. */
  boundedSpace: SpaceHost | undefined;
  /** The root filesystem agent runs' computers run on, when one is built (DESIGN §14); else the host's folders. */
  computerImage?: ComputerImage | undefined;
  /** The seccomp program every bubblewrap sandbox installs (seccomp-filter.ts), when bubblewrap took it here. */
  seccompFile?: string | undefined;
}

/**
 * A sandbox started ahead of need and taken for one run: the run's output adopts its folder,
 * and the runtime of its kind takes it over (runtime/runtime.ts tells the kinds apart).
 */
export interface WarmSandbox {
  readonly kind: 'computer' | 'script';
  /** The run's output folder, already where the sandbox sees it. */
  output: BoundedFolder;
  /** Its control group, with the run limits; the run's group from now on. */
  group: RunGroup | undefined;
  /** Ends the sandbox and removes its group, space and folders (not the output); once, however often asked. */
  release(): Promise<void>;
}

/** Sandboxes of one kind started ahead of need (runtime/computer/computer-pool.ts, runtime/script/script-pool.ts). */
export interface WarmSupply {
  /** How many are ready now. */
  readonly size: number;
  start(): void;
  /** Stops filling, and ends every sandbox still waiting. */
  close(): Promise<void>;
  /** One ready for `skill`'s run, holding its files; none when the pool is empty or the skill does not fit one. */
  takeFor(skill: Skill, uploads: RunUploads | undefined, runId: string): Promise<WarmSandbox | undefined>;
}
