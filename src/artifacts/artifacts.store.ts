import type { Kysely, Selectable, Updateable } from 'kysely';
import { type BlobReferencingTable, blobsReferencedIn } from '../db/blob-references.js';
import type { Tables } from '../db/tables.js';
import type { ArtifactFilesTable, ArtifactsTable } from '../db/tables-artifacts.js';

export type ArtifactRow = Selectable<ArtifactsTable>;
export type ArtifactFileRow = Selectable<ArtifactFilesTable>;

export async function insertArtifact(db: Kysely<Tables>, row: Omit<ArtifactRow, 'number'>): Promise<void> {
  await db.insertInto('artifacts').values(row).execute();
}

export async function updateArtifact(db: Kysely<Tables>, id: string, change: Updateable<ArtifactsTable>): Promise<void> {
  await db.updateTable('artifacts').set(change).where('id', '=', id).execute();
}

export async function insertFiles(db: Kysely<Tables>, files: ArtifactFileRow[]): Promise<void> {
  // Bound the statement's parameter count (SQLite allows 32,766): a bundle can hold many files.
  for (let start = 0; start < files.length; start += 500) {
    await db
      .insertInto('artifact_files')
      .values(files.slice(start, start + 500))
      .execute();
  }
}

/** An artifact as a workspace sees it: another workspace's is not there at all. */
export function findInWorkspace(db: Kysely<Tables>, workspaceId: string, id: string): Promise<ArtifactRow | undefined> {
  return db.selectFrom('artifacts').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findArtifact(db: Kysely<Tables>, id: string): Promise<ArtifactRow | undefined> {
  return db.selectFrom('artifacts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What one execution of the workspace wrote (at most one artifact today), oldest first. */
export function artifactsOfExecution(db: Kysely<Tables>, workspaceId: string, executionId: string): Promise<ArtifactRow[]> {
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('execution_id', '=', executionId)
    .orderBy('number')
    .execute();
}

/** Newest first. */
export function artifactPage(db: Kysely<Tables>, workspaceId: string, limit: number, offset: number): Promise<ArtifactRow[]> {
  return db
    .selectFrom('artifacts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('number', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countInWorkspace(db: Kysely<Tables>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('artifacts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Files of several artifacts, in path order. */
export function filesOf(db: Kysely<Tables>, artifactIds: string[]): Promise<ArtifactFileRow[]> {
  if (artifactIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('artifact_files')
    .selectAll()
    .where('artifact_id', 'in', artifactIds)
    .orderBy('artifact_id')
    .orderBy('path')
    .execute();
}

export function fileAt(db: Kysely<Tables>, artifactId: string, filePath: string): Promise<ArtifactFileRow | undefined> {
  return db
    .selectFrom('artifact_files')
    .selectAll()
    .where('artifact_id', '=', artifactId)
    .where('path', '=', filePath)
    .executeTakeFirst();
}

/** Takes an artifact's files away (their blobs stay until nothing uses them). */
export async function deleteFiles(db: Kysely<Tables>, artifactId: string): Promise<void> {
  await db.deleteFrom('artifact_files').where('artifact_id', '=', artifactId).execute();
}

export async function deleteArtifact(db: Kysely<Tables>, id: string): Promise<void> {
  await db.deleteFrom('artifacts').where('id', '=', id).execute();
}

const BLOB_REFERENCES: BlobReferencingTable[] = ['artifact_files', 'input_files', 'uploaded_skill_files', 'run_checkpoint_files'];

/** Of the given blobs, those no artifact file, uploaded input file, installed skill folder or run checkpoint points at any more. */
export async function unreferenced(db: Kysely<Tables>, sha256s: string[]): Promise<string[]> {
  if (sha256s.length === 0) return [];
  const referenced = new Set<string>();
  for (const table of BLOB_REFERENCES) {
    for (const sha256 of await blobsReferencedIn(db, table, sha256s)) referenced.add(sha256);
  }
  return sha256s.filter((sha256) => !referenced.has(sha256));
}

/** Fails the artifacts left pending by runs this node owned (or no node did): a crashed process left them. */
export async function failPendingArtifacts(db: Kysely<Tables>, nodeId: string): Promise<number> {
  const result = await db
    .updateTable('artifacts')
    .set({ status: 'failed' })
    .where('status', '=', 'pending')
    .where((where) =>
      where(
        'execution_id',
        'in',
        db
          .selectFrom('executions')
          .select('execution_id')
          .where((owned) => owned.or([owned('owner_node', '=', nodeId), owned('owner_node', 'is', null)])),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Fails the artifact a lost attempt at an execution's run left pending: the attempt that resumes it writes its own. */
export async function failPendingArtifactsOf(db: Kysely<Tables>, executionId: string): Promise<void> {
  await db
    .updateTable('artifacts')
    .set({ status: 'failed' })
    .where('status', '=', 'pending')
    .where('execution_id', '=', executionId)
    .execute();
}
