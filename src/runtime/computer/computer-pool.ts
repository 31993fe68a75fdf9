import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { RunUploads } from '../../ports/runs.js';
import type { BoundedFolder, RunGroup, WarmSupply } from '../../ports/sandbox.js';
import type { Skill } from '../../ports/skills.js';
import { computerMissing } from '../../sandbox/computer/computer-availability.js';
import { computerLimits } from '../../sandbox/computer/computer-memory.js';
import type { RunComputer } from '../../sandbox/computer/computer-session.js';
import { openComputer } from '../../sandbox/computer/open-computer.js';
import { linkTree } from '../../sandbox/linked-tree.js';
import { WarmPool, type WarmPoolDeps } from '../../sandbox/warm-pool.js';
import { groupLimits } from '../../sandbox/watched-child.js';
import type { WarmComputer } from '../runtime.js';
import { installedSoftware } from './computer-prompt.js';
import { stopRunComputer } from './run-computer.js';
import { chooseToolset } from './toolset.js';

/** A skill folder (or a run's files) of more entries than this is shown the usual way, by a computer started for it. */
const MAX_PLACED_ENTRIES = 500;
/** The warm-up command's time limit: an empty command on an idle machine takes milliseconds. */
const START_CALL_MS = 10_000;

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
export class ComputerPool extends WarmPool<Warm> implements WarmSupply {
  constructor(deps: WarmPoolDeps) {
    super(deps, 'computer', deps.config.executions.computerPoolSize, deps.config.executions.computerMemoryMb);
  }

  /**
   * Also asks, off the event loop, what the computers have installed, which every run's
   * prompt says: the first run then finds the answer waiting.
   */
  override start(): void {
    void installedSoftware(this.deps.sandbox);
    super.start();
  }

  /**
   * A warm computer for a run of `skill`, holding the skill at /mnt/skills/<slug>/ and the
   * run's files; undefined when the skill needs none, none is ready, or its folder is too
   * large to place quickly (the run then starts its own).
   */
  async takeFor(skill: Skill, uploads: RunUploads | undefined, runId: string): Promise<WarmComputer | undefined> {
    const warm = this.#serves(skill) ? this.take() : undefined;
    if (!warm) return undefined;
    try {
      const shelved = path.join(warm.shelf, skill.slug);
      await mkdir(shelved);
      await linkTree(skill.dir, shelved, MAX_PLACED_ENTRIES);
      if (uploads) await linkTree(uploads.dir, warm.uploads, MAX_PLACED_ENTRIES);
      await warm.computer.claim(runId);
    } catch (error) {
      this.deps.log.info({ err: error, runId }, 'a warm computer could not take its run; the run starts its own');
      await this.discard(warm);
      return undefined;
    }
    const callsAtTake = warm.computer.session.calls;
    return {
      kind: 'computer',
      output: warm.output,
      group: warm.group,
      computer: warm.computer,
      release: this.releaseOf(
        () => stopRunComputer(warm.computer, warm.group, callsAtTake),
        () => releaseParts(warm),
      ),
    };
  }

  #serves(skill: Skill): boolean {
    const { sandbox, config } = this.deps;
    if (skill.runtime !== 'agent' || computerMissing(sandbox) || (!skill.builtIn && !sandbox.runsUntrusted)) return false;
    return chooseToolset(skill.allowedTools, config.executions.allowedHosts.length > 0).needsComputer;
  }

  protected async make(): Promise<Warm> {
    const { sandbox, config } = this.deps;
    const output = await this.openOutput();
    const shelf = `${output.dir}-skills`;
    const uploads = `${output.dir}-uploads`;
    let group: RunGroup | undefined;
    let computer: RunComputer | undefined;
    try {
      await mkdir(shelf);
      await mkdir(uploads);
      group = await sandbox.cgroups?.create(groupLimits(computerLimits(config.executions, config.executions.computerMemoryMb)));
      computer = await openComputer(
        this.deps,
        { spaceDir: `${output.dir}-space`, skills: { shelf }, outputDir: output.dir, uploadsDir: uploads },
        group,
      );
      await computer.session.start();
      // One empty command, so the run's first does not pay for the supervisor's first answer.
      await computer.session.call({ op: 'bash', command: ':', timeout_ms: START_CALL_MS }, START_CALL_MS);
      return { output, shelf, uploads, group, computer };
    } catch (error) {
      await releaseParts({ shelf, uploads, group, computer });
      await output.release();
      throw error;
    }
  }

  protected alive(warm: Warm): boolean {
    return warm.computer.session.ready;
  }

  protected async discard(warm: Warm): Promise<void> {
    try {
      await releaseParts(warm);
      await warm.output.release();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'a warm computer could not be cleared away; the next start clears it');
    }
  }
}

/** Ends the computer and removes its group and folders: all of it but the output, which the run's output owns. */
async function releaseParts(warm: Omit<Warm, 'output' | 'computer'> & { computer: RunComputer | undefined }): Promise<void> {
  warm.computer?.session.close();
  await warm.group?.remove();
  await warm.computer?.release();
  await rm(warm.shelf, { recursive: true, force: true });
  await rm(warm.uploads, { recursive: true, force: true });
}
