import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/** The tables whose rows point at stored blobs by their sha256. */
export type BlobReferencingTable = 'input_files' | 'uploaded_skill_files' | 'artifact_files' | 'run_checkpoint_files';

/** Batches stay well under every backend's limit on bound parameters. */
const BATCH = 500;

/** Of the given blobs, those some row of `table` points at. */
export async function blobsReferencedIn(
  db: Kysely<Tables>,
  table: BlobReferencingTable,
  sha256s: string[],
): Promise<Set<string>> {
  const used = new Set<string>();
  for (let start = 0; start < sha256s.length; start += BATCH) {
    const rows = await db
      .selectFrom(table)
      .select('sha256')
      .distinct()
      .where('sha256', 'in', sha256s.slice(start, start + BATCH))
      .execute();
    for (const row of rows) used.add(row.sha256);
  }
  return used;
}
