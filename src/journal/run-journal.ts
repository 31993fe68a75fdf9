import type { Kysely } from 'kysely';
import { removeOrphans } from '../artifacts/blob-collection.js';
import type { AppContext } from '../context.js';
import type { CheckpointArea, Tables } from '../db/tables.js';
import { ownsRun, type RunOwner } from '../executions/executions.store.js';
import type { JournalStep, RunFolders, RunJournal } from '../skills/run-journal.js';
import { type CheckpointFile, type FolderChanges, FolderSnapshots, restoreFiles } from './checkpoint-files.js';
import { appendStep, checkpointOf, countSteps, dropJournals, type JournalKey, saveCheckpoint, stepsOf } from './journal.store.js';

type JournalDeps = Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config'>;

const AREAS: CheckpointArea[] = ['output', 'workspace'];

/**
 * Files one tool call may change and still be checkpointed. Past it (a script that writes
 * thousands of files), storing them would take longer than the run may last: the run stops
 * keeping checkpoints, and can no longer go on elsewhere (it fails, as before issue 30).
 */
export const CHECKPOINT_MAX_FILES = 1000;

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
  const discardStaged = (change: FolderChanges) =>
    Promise.all(change.changed.flatMap(({ blob }) => (blob ? [ctx.blobs.discard(blob)] : [])));

  const snapshotsOf = (area: CheckpointArea, root: string) => {
    const known = snapshots.get(area);
    if (known?.root === root) return known.snapshots;
    const fresh = new FolderSnapshots(root, ctx.blobs, checkpoints.get(area));
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
        if (root && files.length > 0) await restoreFiles(root, files, ctx.blobs);
      }
    },
    async toolStarted(callId: string, name: string) {
      await ctx.db.transaction().execute((trx) => writeIn(trx, { kind: 'tool_started', callId, name }));
    },
    async toolAnswered(result, folders) {
      const changes: ({ area: CheckpointArea } & FolderChanges)[] = [];
      for (const area of tracking ? AREAS : []) {
        const root = folders[area];
        const found = root ? await snapshotsOf(area, root).changes(CHECKPOINT_MAX_FILES) : undefined;
        if (found === 'tooMany') {
          // From here on the files cannot be put back, so the run cannot go on elsewhere.
          tracking = false;
          for (const change of changes) await discardStaged(change);
          changes.length = 0;
          await ctx.db.transaction().execute(async (trx) => {
            await writeIn(trx, { kind: 'files_untracked' });
            await writeIn(trx, { kind: 'tool_result', result });
          });
          return;
        }
        if (found) changes.push({ area, ...found });
      }
      const staged = changes.flatMap((change) => change.changed.flatMap(({ blob }) => (blob ? [blob] : [])));
      // Committed and referenced under the store's lock, so a collector never sees a blob between the two.
      await ctx.blobs.exclusive(async () => {
        for (const blob of staged) await ctx.blobs.commit(blob);
        await ctx.db.transaction().execute(async (trx) => {
          for (const change of changes) {
            const changed = change.changed.map(({ file }) => file);
            if (changed.length > 0 || change.removed.length > 0) {
              await saveCheckpoint(trx, key, change.area, { changed, removed: change.removed });
            }
          }
          await writeIn(trx, { kind: 'tool_result', result });
        });
      });
    },
  };
}

/**
 * Drops an execution's journals once its run has ended (a journal only serves a run that
 * may still resume), and the checkpoint blobs nothing else names.
 */
export async function closeRunJournals(ctx: JournalDeps, executionId: string): Promise<void> {
  await ctx.blobs.exclusive(async () => {
    const named = await dropJournals(ctx.db, executionId);
    await removeOrphans(ctx, named);
  });
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
