import type { Kysely } from 'kysely';
import { filesOf, findInWorkspace as findArtifactInWorkspace } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import { Conflict, InvalidInput, NotFound, PayloadTooLarge } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { findInWorkspace, insertExecutionFiles, keepUntil } from './files.store.js';

/** What a run may be given: an uploaded file, or every file of an artifact. */
export type FileRef = { fileId: string } | { artifactId: string };

/** DESIGN §15: files per run (an artifact counts each of its files) and their bytes together. */
export const RUN_FILES_MAX = 100;
export const RUN_BYTES_MAX = 500 * 1024 * 1024;

/** Checked references, ready to be linked to the execution being created. */
export interface RunFiles {
  refs: FileRef[];
  fileIds: string[];
  /** The files are kept at least until then: ATTACHED_FILE_RETENTION_DAYS after this run. */
  keepUntil: string;
}

const FILE_GONE = 'File not found: it may have been deleted or have expired. Upload it again and start the run with its new id.';

/**
 * Checks that every reference names a file or a completed artifact of the caller's
 * workspace (another workspace's is not found, like one that never was) and that together
 * they stay within the run limits. Nothing is stored.
 */
export async function checkRunFiles(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  caller: Caller,
  refs: FileRef[],
): Promise<RunFiles> {
  let count = 0;
  let bytes = 0;
  const fileIds: string[] = [];
  for (const ref of refs) {
    if ('fileId' in ref) {
      const file = await findInWorkspace(ctx.db, caller.workspaceId, ref.fileId);
      if (!file) throw new NotFound(FILE_GONE);
      fileIds.push(file.id);
      count += 1;
      bytes += Number(file.size);
    } else {
      const artifact = await findArtifactInWorkspace(ctx.db, caller.workspaceId, ref.artifactId);
      if (!artifact) throw new NotFound('Artifact not found: check its id in your artifact list.');
      if (artifact.status !== 'completed') {
        throw new Conflict(
          `That artifact has no files to give a run (its run ${artifact.status === 'pending' ? 'is still going' : 'failed'}).`,
        );
      }
      const files = await filesOf(ctx.db, [artifact.id]);
      count += files.length;
      bytes += files.reduce((sum, file) => sum + Number(file.size), 0);
    }
    if (count > RUN_FILES_MAX) {
      throw new InvalidInput(
        `A run can be given at most ${RUN_FILES_MAX} files (an artifact counts each of its files). Give it fewer.`,
      );
    }
  }
  if (bytes > RUN_BYTES_MAX) {
    throw new PayloadTooLarge(
      `A run can be given at most ${RUN_BYTES_MAX} bytes of files; these come to ${bytes}. Give it fewer or smaller files.`,
    );
  }
  return { refs, fileIds, keepUntil: new Date(ctx.clock.nowMs() + ctx.config.attachedFileRetentionMs).toISOString() };
}

/**
 * Links the checked files to a new execution, in the transaction that creates it. A file a
 * run is given is kept for ATTACHED_FILE_RETENTION_DAYS after it (each new run puts its
 * expiry later), not for good: what a workspace keeps has to end. One deleted since the check
 * (or swept) fails the whole creation, so nothing is created.
 */
export async function attachRunFiles(trx: Kysely<Tables>, executionId: string, files: RunFiles): Promise<void> {
  await insertExecutionFiles(
    trx,
    files.refs.map((ref, position) => ({
      execution_id: executionId,
      position,
      file_id: 'fileId' in ref ? ref.fileId : null,
      artifact_id: 'artifactId' in ref ? ref.artifactId : null,
    })),
  );
  const unique = [...new Set(files.fileIds)];
  if ((await keepUntil(trx, unique, files.keepUntil)) < unique.length) throw new NotFound(FILE_GONE);
}
