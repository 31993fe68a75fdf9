import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import type { CheckpointArea } from '../db/tables-runs.js';
import type { ToolResult } from '../models/conversation.js';
import type { ScopedBlobStore } from '../ports/blob-store.js';
import type { JournalStep, RunFolders, RunJournal } from '../runtime/journal-steps.js';
import { type CheckpointFile, type FolderChanges, FolderSnapshots, restoreFiles } from './checkpoint-files.js';
import { ownsRun, type RunOwner } from './executions.store.js';
import {
  appendStep,
  checkpointOf,
  countSteps,
  dropJournals,
  type JournalKey,
  namedByCheckpoints,
  saveCheckpoint,
  stepsOf,
  workingAmong,
} from './journal.store.js';

type JournalDeps = Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'log'>;

const AREAS: CheckpointArea[] = ['output', 'workspace'];

/**
 * Files one tool call may change and still be checkpointed. Past it (a script that writes
 * thousands of files), storing them would take longer than the run may last: the run stops
 * keeping checkpoints, and can no longer go on elsewhere (it fails, as before issue 30).
 */
export const CHECKPOINT_MAX_FILES = 1000;

/**
 * The blobs of an execution's checkpoints, in a store of their own: only the run's attempts
 * write there, so superseded versions can go as soon as a checkpoint stops naming them, and
 * the whole store when the run ends, even in a cluster, where shared blobs go only when old.
 */
function checkpointBlobs(ctx: Pick<AppContext, 'blobs'>, executionId: string): ScopedBlobStore {
  return ctx.blobs.scope(`${CHECKPOINT_STORE}${executionId}`);
}

const CHECKPOINT_STORE = 'checkpoints-';

/** This node's attempt at a run lost the run: another worker took it over. */
export class RunHandedOn extends Error {
  constructor() {
    super('the run was handed to another worker');
  }
}

/** The run's journal as a runtime sees it, plus the writer its account charges model calls with. */
export interface OpenJournal extends RunJournal {
  /** Journals a step inside a transaction of the caller's (a model call's charge). */
  writeIn(trx: Kysely<Tables>, step: JournalStep): Promise<void>;
}

/**
 * Opens the journal of one run (issue 30) for the attempt `owner`. A first attempt starts
 * empty; a resumed one (`resuming`) reads what its earlier attempts completed and the files
 * of their latest checkpoint, which it puts back before it goes on.
 */
export async function openRunJournal(
  ctx: JournalDeps,
  key: JournalKey,
  attempt: { owner: RunOwner; resuming: boolean },
): Promise<OpenJournal> {
  const { owner, resuming } = attempt;
  const rows = resuming ? await stepsOf(ctx.db, key) : [];
  const steps = rows.map((row) => JSON.parse(row.body) as JournalStep);
  const checkpoints = new Map<CheckpointArea, CheckpointFile[]>();
  if (resuming) for (const area of AREAS) checkpoints.set(area, await checkpointOf(ctx.db, key, area));
  // The gap the person saw: from the lost attempt's last step, not from the hand-over's own row.
  const lastAt = rows.findLast((row) => row.kind !== 'resumed')?.created_at;
  const snapshots = new Map<CheckpointArea, { root: string; snapshots: FolderSnapshots }>();
  let tracking = !rows.some((row) => row.kind === 'files_untracked');
  const blobs = checkpointBlobs(ctx, key.executionId);
  const budget = ctx.config.checkpointBytesPerRun;
  // What the store holds for the run, counted against its budget: a resumed attempt starts from its checkpoint's files.
  let stored = [...checkpoints.values()].flat().reduce((sum, file) => sum + file.size, 0);
  const discardStaged = (change: FolderChanges) =>
    Promise.all(change.changed.flatMap(({ blob }) => (blob ? [blobs.discard(blob)] : [])));
  const stagedBytes = (changes: FolderChanges[]) =>
    changes.reduce((sum, change) => sum + change.changed.reduce((bytes, { file }) => bytes + file.size, 0), 0);
  // Versions a checkpoint no longer names go once it has committed; bytes another path still names stay.
  const removeSuperseded = async (superseded: string[]) => {
    const candidates = [...new Set(superseded)];
    if (candidates.length === 0) return;
    const named = await namedByCheckpoints(ctx.db, key.executionId, candidates);
    for (const sha256 of candidates) if (!named.has(sha256)) await blobs.remove(sha256);
  };
  const stopTracking = async (why: string, result: ToolResult) => {
    // From here on the files cannot be put back, so the run cannot go on elsewhere.
    tracking = false;
    ctx.log.warn(
      { executionId: key.executionId },
      `stopped keeping checkpoints of a run's files (${why}): if its worker is lost, the run fails instead of going on elsewhere`,
    );
    await ctx.db.transaction().execute(async (trx) => {
      await writeIn(trx, { kind: 'files_untracked', why });
      await writeIn(trx, { kind: 'tool_result', result });
    });
  };

  const snapshotsOf = (area: CheckpointArea, root: string) => {
    const known = snapshots.get(area);
    if (known?.root === root) return known.snapshots;
    const fresh = new FolderSnapshots(root, blobs, checkpoints.get(area));
    snapshots.set(area, { root, snapshots: fresh });
    return fresh;
  };
  // A node cut off from the cluster may still be running a run that was handed on, perhaps
  // back to this very node: the old attempt's steps (and the charges they commit with) are
  // refused, which ends it. The owner is held until the step commits, so a hand-on cannot
  // slip in between the check and the charge.
  const writeIn = async (trx: Kysely<Tables>, step: JournalStep) => {
    if (!(await ownsRun(trx, key.executionId, owner, { held: true }))) throw new RunHandedOn();
    await appendStep(trx, key, { kind: step.kind, body: JSON.stringify(step), created_at: ctx.clock.now().toISOString() });
  };

  return {
    steps,
    ...(resuming
      ? {
          resumedFrom: {
            pauseSeconds:
              lastAt === undefined ? undefined : Math.max(0, Math.round((ctx.clock.nowMs() - new Date(lastAt).getTime()) / 1000)),
          },
        }
      : {}),
    writeIn,
    async restore(folders: RunFolders) {
      for (const area of AREAS) {
        const root = folders[area];
        const files = checkpoints.get(area) ?? [];
        if (root && files.length > 0) await restoreFiles(root, files, blobs);
      }
    },
    async toolStarted(callId: string, name: string) {
      await ctx.db.transaction().execute((trx) => writeIn(trx, { kind: 'tool_started', callId, name }));
    },
    async toolAnswered(result, folders) {
      const changes: ({ area: CheckpointArea } & FolderChanges)[] = [];
      for (const area of tracking ? AREAS : []) {
        const root = folders[area];
        const limits = { files: CHECKPOINT_MAX_FILES, bytes: budget - stored - stagedBytes(changes) };
        const found = root ? await snapshotsOf(area, root).changes(limits) : undefined;
        if (found === 'tooMany' || found === 'tooLarge') {
          for (const change of changes) await discardStaged(change);
          const why =
            found === 'tooMany'
              ? `one tool call changed more than ${CHECKPOINT_MAX_FILES} files`
              : `its checkpoints would store more than CHECKPOINT_BYTES_PER_RUN, ${budget} bytes`;
          return stopTracking(why, result);
        }
        if (found) changes.push({ area, ...found });
      }
      const staged = changes.flatMap((change) => change.changed.flatMap(({ blob }) => (blob ? [blob] : [])));
      // Only this run's attempts write its checkpoint store, so no lock is needed between commit and record.
      for (const blob of staged) await blobs.commit(blob);
      await ctx.db.transaction().execute(async (trx) => {
        for (const change of changes) {
          const changed = change.changed.map(({ file }) => file);
          if (changed.length > 0 || change.removed.length > 0) {
            await saveCheckpoint(trx, key, change.area, { changed, removed: change.removed });
          }
        }
        await writeIn(trx, { kind: 'tool_result', result });
      });
      stored += stagedBytes(changes);
      await removeSuperseded(changes.flatMap((change) => change.superseded)).catch((error: unknown) =>
        // Left for the run's end, which drops the whole store.
        ctx.log.warn({ err: error, executionId: key.executionId }, 'superseded checkpoint files could not be removed'),
      );
    },
  };
}

/**
 * Drops an execution's journals once its run has ended (a journal only serves a run that
 * may still resume), and its checkpoint store with every blob in it.
 */
export async function closeRunJournals(ctx: Pick<AppContext, 'db' | 'blobs'>, executionId: string): Promise<void> {
  await dropJournals(ctx.db, executionId);
  await checkpointBlobs(ctx, executionId).drop();
}
/**
 * Drops the checkpoint stores of executions not working now: what a failed drop left, or an
 * attempt cut off from the cluster that went on writing after its run ended. Part of the
 * lease holder's blob sweep; returns how many went.
 */
export async function sweepCheckpointStores(ctx: Pick<AppContext, 'db' | 'blobs'>): Promise<number> {
  const executionIds = (await ctx.blobs.scopes())
    .filter((name) => name.startsWith(CHECKPOINT_STORE))
    .map((name) => name.slice(CHECKPOINT_STORE.length));
  const working = await workingAmong(ctx.db, executionIds);
  const ended = executionIds.filter((executionId) => !working.has(executionId));
  for (const executionId of ended) await checkpointBlobs(ctx, executionId).drop();
  return ended.length;
}

/** How often a run was handed on after its worker was lost. */
export function resumesOf(ctx: Pick<AppContext, 'db'>, key: JournalKey): Promise<number> {
  return countSteps(ctx.db, key, 'resumed');
}

/** Records that a run is handed to another worker, in the caller's transaction (the hand-on's). */
export function noteResumed(trx: Kysely<Tables>, key: JournalKey, nowIso: string): Promise<void> {
  return appendStep(trx, key, { kind: 'resumed', body: '{"kind":"resumed"}', created_at: nowIso });
}

/** Whether a run's journal still lets it go on elsewhere: false once a step changed too many files to checkpoint. */
export async function filesTracked(ctx: Pick<AppContext, 'db'>, key: JournalKey): Promise<boolean> {
  return (await countSteps(ctx.db, key, 'files_untracked')) === 0;
}
