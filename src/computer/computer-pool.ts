import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { freemem } from 'node:os';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Skill } from '../skills/registry.js';
import type { RunGroup } from '../skills/run-cgroup.js';
import { type BoundedFolder, openBoundedFolder, outputSpace } from '../skills/run-space.js';
import type { RunUploads, WarmComputer } from '../skills/runtime.js';
import type { SkillSandbox } from '../skills/sandbox.js';
import { groupLimits } from '../skills/watched-child.js';
import { computerMissing } from './computer-availability.js';
import type { RunComputer } from './computer-session.js';
import { linkTree } from './linked-tree.js';
import { openComputer } from './open-computer.js';
import { chooseToolset } from './toolset.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Fills the pool of warm computers and keeps it filled: an entry point's call once its
     * node serves. An app that never calls it (a test's) fills the pool on its first agent run.
     */
    warmComputers(): void;
  }
}

/** A warm computer older than this is replaced: it should not outlive a change to the machine's software by long. */
export const WARM_MAX_AGE_MS = 10 * 60_000;
/** How often the pool looks at its computers: dead, stale or too many for the free memory. */
const TEND_EVERY_MS = 15_000;
/** After a computer is taken, the next is started this much later, so the run's own start has the processor first. */
const REFILL_DELAY_MS = 250;
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
  madeAt: number;
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
 * in it. A run takes one, its skill and files are linked in, and it is that run's alone:
 * a computer is never handed out twice, and never back to the pool. A dead or stale one is
 * replaced; the pool holds fewer when free memory is short. Without a pool (size 0, or a
 * server that cannot give a computer) every run starts its own, as before.
 */
export class ComputerPool {
  readonly #deps: ComputerPoolDeps;
  readonly #ready: Warm[] = [];
  #filling: Promise<void> | undefined;
  /** Stops the regular tending, once started. */
  #stopTending: (() => void) | undefined;
  /** The refill due after a take: a pause for the processor's sake, so a real timer, not the clock's. */
  #refill: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: ComputerPoolDeps) {
    this.#deps = deps;
  }

  /** How many are ready now. */
  get size(): number {
    return this.#ready.length;
  }

  /** Fills the pool now and keeps tending it; without this it fills on the first run that needs one. */
  start(): void {
    if (this.#closed || this.#stopTending) return;
    this.#stopTending = this.#deps.clock.every(TEND_EVERY_MS, () => void this.tend());
    void this.tend();
  }

  /**
   * A warm computer for a run of `skill`, holding the skill at /mnt/skills/<slug>/ and the
   * run's files; undefined when the skill needs none, none is ready, or its folder is too
   * large to place quickly (the run then starts its own).
   */
  async takeFor(skill: Skill, uploads: RunUploads | undefined, runId: string): Promise<WarmComputer | undefined> {
    if (!this.#serves(skill)) return undefined;
    const warm = this.#takeReady();
    this.#refillSoon();
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
      output: warm.output,
      group: warm.group,
      computer: warm.computer,
      release: () => {
        released ??= this.#releaseParts(warm);
        return released;
      },
    };
  }

  /** Drops the dead, the stale and those free memory no longer allows, then starts what is missing. */
  async tend(): Promise<void> {
    const now = this.#deps.clock.now().getTime();
    const keep = this.#ready.filter((warm) => warm.computer.session.ready && now - warm.madeAt < WARM_MAX_AGE_MS);
    const surplus = Math.max(0, keep.length - this.#target());
    const kept = keep.slice(surplus);
    const dropped = this.#ready.filter((warm) => !kept.includes(warm));
    this.#ready.splice(0, this.#ready.length, ...kept);
    await Promise.all(dropped.map((warm) => this.#discard(warm)));
    await this.#fill();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopTending?.();
    clearTimeout(this.#refill);
    await this.#filling;
    await Promise.all(this.#ready.splice(0).map((warm) => this.#discard(warm)));
  }

  #serves(skill: Skill): boolean {
    const { sandbox, config } = this.#deps;
    if (this.#closed || config.executions.computerPoolSize === 0 || skill.runtime !== 'agent') return false;
    if (computerMissing(sandbox) || (!skill.builtIn && !sandbox.runsUntrusted)) return false;
    return chooseToolset(skill.allowedTools, config.executions.allowedHosts.length > 0).needsComputer;
  }

  #takeReady(): Warm | undefined {
    const now = this.#deps.clock.now().getTime();
    for (let warm = this.#ready.shift(); warm; warm = this.#ready.shift()) {
      if (warm.computer.session.ready && now - warm.madeAt < WARM_MAX_AGE_MS) return warm;
      void this.#discard(warm);
    }
    return undefined;
  }

  /**
   * How many to hold: the setting, but only while each warm computer leaves a run's memory
   * limit free for itself, beyond one run's worth kept free for everything else.
   */
  #target(): number {
    const { config, freeMemory = freemem } = this.#deps;
    const perRun = config.executions.memoryMb * MIB;
    return Math.max(0, Math.min(config.executions.computerPoolSize, Math.floor(freeMemory() / perRun) - 1));
  }

  #refillSoon(): void {
    if (this.#closed || this.#refill) return;
    this.#refill = setTimeout(() => {
      this.#refill = undefined;
      void this.tend();
    }, REFILL_DELAY_MS).unref();
  }

  /** One round of filling at a time: a second ask while one runs waits for that one. */
  #fill(): Promise<void> {
    if (!this.#filling) {
      const filling = this.#fillRound();
      this.#filling = filling;
      void filling.finally(() => {
        if (this.#filling === filling) this.#filling = undefined;
      });
    }
    return this.#filling;
  }

  /** Starts computers one at a time until the pool holds its target; one that will not start ends the round. */
  async #fillRound(): Promise<void> {
    try {
      while (!this.#closed && this.#ready.length < this.#target()) {
        const warm = await this.#make();
        if (this.#closed) await this.#discard(warm);
        else this.#ready.push(warm);
      }
    } catch (error) {
      this.#deps.log.warn({ err: error }, 'a warm computer could not be started; runs start their own meanwhile');
    }
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
      return { madeAt: this.#deps.clock.now().getTime(), output, shelf, uploads, group, computer };
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
