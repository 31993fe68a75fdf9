import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../../paths.js';
import type { RunUploads } from '../../ports/runs.js';
import type { BoundedFolder, RunGroup, WarmSupply } from '../../ports/sandbox.js';
import type { Skill } from '../../ports/skills.js';
import { linkTree } from '../../sandbox/linked-tree.js';
import { skillCommand } from '../../sandbox/skill-command.js';
import { WarmPool, type WarmPoolDeps } from '../../sandbox/warm-pool.js';
import { groupLimits, spawnInGroup } from '../../sandbox/watched-child.js';
import type { WarmScript } from '../runtime.js';

/** A skill folder of more entries than this runs the usual way, in a sandbox started for it. */
const MAX_PLACED_ENTRIES = 500;

/** One script sandbox started ahead of need: Node and the harness loaded, waiting for the first line of its input. */
interface Warm {
  output: BoundedFolder;
  /** The only skill folder Node may read besides the shared packages: the skill is linked in when a run takes it. */
  shelf: string;
  group: RunGroup | undefined;
  child: ChildProcessWithoutNullStreams;
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const isRunning = (child: ChildProcessWithoutNullStreams) => child.exitCode === null && child.signalCode === null;

/**
 * Script-skill sandboxes started ahead of need (issue 29): bubblewrap, the run limits and
 * Node with the harness (runtime/harness.mjs), started with "-" for its entry, so it waits
 * for the run to name it. A run takes one, its skill is linked onto the shelf, and the
 * entry and input go down its stdin; it is that run's alone (warm-pool.ts keeps the pool).
 * Runs with files, and servers without bubblewrap, start their own, as before.
 */
export class ScriptPool extends WarmPool<Warm> implements WarmSupply {
  constructor(deps: WarmPoolDeps) {
    super(deps, 'script sandbox', deps.config.executions.scriptPoolSize, deps.config.executions.memoryMb);
  }

  /** A warm sandbox holding `skill`, or undefined when none is ready or the run is not one it serves. */
  async takeFor(skill: Skill, uploads: RunUploads | undefined): Promise<WarmScript | undefined> {
    const warm = this.#serves(skill, uploads) ? this.take() : undefined;
    if (!warm) return undefined;
    const shelved = path.join(warm.shelf, skill.slug);
    try {
      await mkdir(shelved);
      await linkTree(skill.dir, shelved, MAX_PLACED_ENTRIES);
    } catch (error) {
      this.deps.log.info(
        { err: error, skill: skill.slug },
        'a warm script sandbox could not take its run; the run starts its own',
      );
      await this.discard(warm);
      return undefined;
    }
    return {
      kind: 'script',
      output: warm.output,
      group: warm.group,
      child: warm.child,
      closed: warm.closed,
      entry: path.join(shelved, skill.entry ?? ''),
      release: this.releaseOf(
        () => stopScript(warm),
        () => releaseParts(warm),
      ),
    };
  }

  #serves(skill: Skill, uploads: RunUploads | undefined): boolean {
    const { sandbox } = this.deps;
    if (skill.runtime !== 'script' || uploads || sandbox.kind !== 'bwrap') return false;
    // The entry travels as the first line of the input.
    return (skill.builtIn || sandbox.runsUntrusted) && !(skill.entry ?? '').includes('\n');
  }

  protected async make(): Promise<Warm> {
    const { sandbox, config } = this.deps;
    const limits = config.executions;
    const output = await this.openOutput();
    const shelf = `${output.dir}-skill`;
    let group: RunGroup | undefined;
    try {
      await mkdir(shelf);
      // Shared packages resolve from the skill's folder upwards, as they do from the built-in skills' folder.
      await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(shelf, 'node_modules'), 'dir');
      group = await sandbox.cgroups?.create(groupLimits(limits));
      const command = skillCommand(sandbox, { skillDir: shelf, entry: '-', outputDir: output.dir }, limits);
      const child = spawnInGroup(command, {
        cwd: output.dir,
        env: {},
        setpriv: sandbox.setpriv,
        seccompFile: sandbox.seccompFile,
        ...(group ? { group } : {}),
      });
      const closed = once(child, 'close').then(([code, signal]) => ({
        code: code as number | null,
        signal: signal as NodeJS.Signals | null,
      }));
      child.stdin.on('error', () => undefined);
      await Promise.race([once(child, 'spawn'), once(child, 'error').then(([error]) => Promise.reject(error))]);
      return { output, shelf, group, child, closed };
    } catch (error) {
      await group?.remove();
      await rm(shelf, { recursive: true, force: true });
      await output.release();
      throw error;
    }
  }

  protected alive(warm: Warm): boolean {
    return isRunning(warm.child);
  }

  protected async discard(warm: Warm): Promise<void> {
    try {
      await releaseParts(warm);
      await warm.output.release();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'a warm script sandbox could not be cleared away; the next start clears it');
    }
  }
}

/** Kills what is left of the script and, where there is one, every process of its group. */
async function stopScript(warm: Warm): Promise<void> {
  if (isRunning(warm.child)) warm.child.kill('SIGKILL');
  await Promise.all([warm.closed, warm.group?.kill()]);
}

/** Kills what is left and removes its group and the placed skill: all of it but the output, which the run's output owns. */
async function releaseParts(warm: Warm): Promise<void> {
  if (isRunning(warm.child)) warm.child.kill('SIGKILL');
  await warm.group?.remove();
  await rm(warm.shelf, { recursive: true, force: true });
}
