import type { Readable } from 'node:stream';

/** A blob copied into a temporary file and hashed, not yet visible under its name. */
export interface StagedBlob {
  sha256: string;
  /** CRC-32 of the bytes, as ZIP archives need it. */
  crc32: number;
  size: number;
  tempPath: string;
}

/**
 * Content-addressed file storage: a blob's name is the SHA-256 of its bytes. Writes go to
 * a temporary file that is flushed to disk and only then stored under its name, so a crash
 * never leaves a partial blob under a real name. Within one process, names change only
 * inside `exclusive`, which is also where callers record or drop references, so that a blob
 * about to be referenced again is never collected in between. Across the nodes of a cluster
 * that lock does not reach: there a blob's age guards it (see artifacts/blob-collection.ts), which is
 * why `commit` leaves a blob young and removal can be limited to old blobs.
 */
export interface BlobStore {
  stage(source: Readable): Promise<StagedBlob>;
  /** Stores a staged blob under its name; afterwards the blob counts as just written. */
  commit(staged: StagedBlob): Promise<void>;
  discard(staged: StagedBlob): Promise<void>;
  read(sha256: string): Readable;
  /** A blob of known size, whole: fewer system calls than a stream for small blobs. */
  readAll(sha256: string, size: number): Promise<Buffer>;
  /**
   * Removes a blob; with `ifOlderThan`, only one last written before then. True when a blob
   * was removed (false: none, or a younger one).
   */
  remove(sha256: string, ifOlderThan?: Date): Promise<boolean>;
  /** Every stored blob's name; with `olderThan`, only those last written before then. */
  names(olderThan?: Date): Promise<string[]>;
  /**
   * Removes temporary files left by a crash: all of them, which is only safe when nothing is
   * staging, or with `olderThan` those last written before then.
   */
  clearTemporary(olderThan?: Date): Promise<void>;
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /**
   * A store of its own named `name` (one run's checkpoints), beside this one's blobs and never
   * among them: no other writer shares its blobs, so its owner may remove them at once, where
   * a cluster's shared store can only remove old ones.
   */
  scope(name: string): ScopedBlobStore;
  /** The names of the scoped stores that hold blobs, or held them and were not dropped. */
  scopes(): Promise<string[]>;
  /** Only a store on this machine's disk has paths; the server itself reads through streams. */
  pathOf?(sha256: string): string;
}

/** A store of one owner's blobs, removed whole when the owner is done with them. */
export interface ScopedBlobStore extends BlobStore {
  drop(): Promise<void>;
}
