import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { linkTree } from '../skills/linked-tree.js';
import type { Skill } from '../skills/registry.js';
import type { RunGroup } from '../skills/run-cgroup.js';
import { type BoundedFolder, openBoundedFolder, outputSpace } from '../skills/run-space.js';
import type { RunUploads, WarmComputer } from '../skills/runtime.js';
import type { SkillSandbox } from '../skills/sandbox.js';
import { WarmPool } from '../skills/warm-pool.js';
import { groupLimits } from '../skills/watched-child.js';
import { computerMissing } from './computer-availability.js';
import type { RunComputer } from './computer-session.js';
import { openComputer } from './open-computer.js';
import { chooseToolset } from './toolset.js';

/** A skill folder (or a run's files) of more entries than this is shown the usual way, by a computer started for it. */
const MAX_PLACED_ENTRIES = 500;
const MIB = 1024 * 1024;
/** The warm-up command's time limit: an empty command on an idle machine takes milliseconds. */
const START_CALL_MS = 10_000;

export interface ComputerPoolDeps {
  sandbox: SkillSandbox;
  config: Pick<Config, 'dataDir' | 'executions' | 'webhooks'>;
  log: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
  clock: Clock;
  /** Bytes of memory free on this machine; os.freemem when absent. */
  freeMemory?: () => number;
}

/** One computer started ahead of need, and the folders it shows, all empty. */
interface Warm {
  /** The output folder, at /mnt/session/outputs. */
  output: BoundedFolder;
  /** Shown read only at /mnt/skills/: the skill is linked in when a run takes the computer. */
  shelf: string;
  /** Shown read only at /mnt/user-data/uploads/. */
  uploads: string;
  group: RunGroup | undefined;
  computer: RunComputer;
}

/**
 * Agent-run computers started ahead of need (issue 29): each is a fresh sandbox with its
 * supervisor ready, its own control group, bounded space and empty folders, and no user code
 * in it. A run takes one, its skill and files are linked in, and it is that run's alone
 * (warm-pool.ts keeps the pool). Without a pool (size 0, or a server that cannot give a
 * computer) every run starts its own, as before.
 */
export class ComputerPool {
  readonly #deps: ComputerPoolDeps;
  readonly #pool: WarmPool<Warm>;

  constructor(deps: ComputerPoolDeps) {
    this.#deps = deps;
    const { executions } = deps.config;
    this.#pool = new WarmPool<Warm>(
      {
        name: 'computer',
        make: () => this.#make(),
        alive: (warm) => warm.computer.session.ready,
        discard: (warm) => this.#discard(warm),
      },
      {
        clock: deps.clock,
        size: executions.computerPoolSize,
        runMemoryBytes: executions.memoryMb * MIB,
        freeMemory: deps.freeMemory,
        log: deps.log,
      },
    );
  }

  /** How many are ready now. */
  get size(): number {
    return this.#pool.size;
  }

  /** Fills the pool now and keeps tending it; without this it fills on the first run that needs one. */
  start(): void {
    this.#pool.start();
  }

  tend(): Promise<void> {
    return this.#pool.tend();
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  /**
   * A warm computer for a run of `skill`, holding the skill at /mnt/skills/<slug>/ and the
   * run's files; undefined when the skill needs none, none is ready, or its folder is too
   * large to place quickly (the run then starts its own).
   */
  async takeFor(skill: Skill, uploads: RunUploads | undefined, runId: string): Promise<WarmComputer | undefined> {
    const warm = this.#serves(skill) ? this.#pool.take() : undefined;
    if (!warm) return undefined;
    try {
      const shelved = path.join(warm.shelf, skill.slug);
      await mkdir(shelved);
      await linkTree(skill.dir, shelved, MAX_PLACED_ENTRIES);
      if (uploads) await linkTree(uploads.dir, warm.uploads, MAX_PLACED_ENTRIES);
      await warm.computer.claim(runId);
    } catch (error) {
      this.#deps.log.info({ err: error, runId }, 'a warm computer could not take its run; the run starts its own');
      await this.#discard(warm);
      return undefined;
    }
    let released: Promise<void> | undefined;
    return {
      kind: 'computer',
      output: warm.output,
      group: warm.group,
      computer: warm.computer,
      release: () => {
        released ??= this.#releaseParts(warm);
        return released;
      },
    };
  }

  #serves(skill: Skill): boolean {
    const { sandbox, config } = this.#deps;
    if (skill.runtime !== 'agent' || computerMissing(sandbox) || (!skill.builtIn && !sandbox.runsUntrusted)) return false;
    return chooseToolset(skill.allowedTools, config.executions.allowedHosts.length > 0).needsComputer;
  }

  /** Under scratch/, as a run's output folder is, so a server killed outright has it all removed at its next start. */
  async #make(): Promise<Warm> {
    const { sandbox, config } = this.#deps;
    const limits = config.executions;
    const dir = path.join(config.dataDir, 'scratch', randomUUID());
    const output = await openBoundedFolder(
      sandbox.boundedSpace,
      dir,
      outputSpace({ outputBytes: limits.outputLimitBytes, outputFiles: limits.outputFileLimit }),
    );
    const shelf = `${dir}-skills`;
    const uploads = `${dir}-uploads`;
    let group: RunGroup | undefined;
    let computer: RunComputer | undefined;
    try {
      await mkdir(shelf);
      await mkdir(uploads);
      group = await sandbox.cgroups?.create(groupLimits(limits));
      computer = await openComputer(
        this.#deps,
        { spaceDir: `${dir}-space`, skills: { shelf }, outputDir: dir, uploadsDir: uploads },
        group,
      );
      await computer.session.start();
      // One empty command, so the run's first does not pay for the supervisor's first answer.
      await computer.session.call({ op: 'bash', command: ':', timeout_ms: START_CALL_MS }, START_CALL_MS);
      return { output, shelf, uploads, group, computer };
    } catch (error) {
      const parts = { output, shelf, uploads, group, computer };
      await this.#releaseParts(parts);
      await output.release();
      throw error;
    }
  }

  async #releaseParts(warm: Pick<Warm, 'shelf' | 'uploads' | 'group'> & { computer: RunComputer | undefined }): Promise<void> {
    warm.computer?.session.close();
    await warm.group?.remove();
    await warm.computer?.release();
    await rm(warm.shelf, { recursive: true, force: true });
    await rm(warm.uploads, { recursive: true, force: true });
  }

  async #discard(warm: Warm): Promise<void> {
    try {
      await this.#releaseParts(warm);
      await warm.output.release();
    } catch (error) {
      this.#deps.log.warn({ err: error }, 'a warm computer could not be cleared away; the next start clears it');
    }
  }
}
