import { open, unlink } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { BlobStore, ScopedBlobStore, StagedBlob } from '../ports/blob-store.js';
import { REFRESH_AFTER_MS } from './blob-ages.js';
import { assertBlobName, clearFolder, isBlobName, stageFile, Turns } from './blob-files.js';
import { assertScopeName, isScopeName, SCOPES_FOLDER } from './blob-store.js';

export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Put before every blob's name: empty, or ending with `/`. */
  prefix: string;
  /** A folder on this node's own disk where blobs are staged before they are uploaded. */
  stagingDir: string;
}

/**
 * Blobs in an S3-compatible bucket, each under `prefix + sha256`. Staging is local, as in
 * the folder store: the bytes are hashed on the way to a temporary file, and only whole,
 * named content is uploaded. An object's LastModified is its age for collection.
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #stagingDir: string;
  readonly #turns = new Turns();

  constructor(options: S3BlobStoreOptions) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#prefix = options.prefix;
    this.#stagingDir = options.stagingDir;
  }

  stage(source: Readable): Promise<StagedBlob> {
    return stageFile(this.#stagingDir, source);
  }

  async commit(staged: StagedBlob): Promise<void> {
    const key = this.#key(staged.sha256);
    const stored = await this.#lastModified(key);
    // The same name holds the same bytes, so a stored blob needs no upload unless it is old:
    // then it is written again to make it young, or a cluster's collector could take it
    // before the reference about to be recorded (see blob-collection.ts).
    if (stored === undefined || stored.getTime() < Date.now() - REFRESH_AFTER_MS) {
      // Opened before the upload starts: a staged file that is gone fails here with ENOENT.
      // A stream opened by name would fail only once the SDK held it, and its request waited for ever.
      const file = await open(staged.tempPath, 'r');
      try {
        await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: key,
            Body: file.createReadStream({ autoClose: false }),
            ContentLength: staged.size,
            ContentType: 'application/octet-stream',
            // The store checks the bytes it received against the hash they are named by.
            ChecksumSHA256: Buffer.from(staged.sha256, 'hex').toString('base64'),
          }),
        );
      } finally {
        await file.close();
      }
    }
    await this.discard(staged);
  }

  async discard(staged: StagedBlob): Promise<void> {
    await unlink(staged.tempPath).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  read(sha256: string): Readable {
    const key = this.#key(sha256);
    // Callers want a stream at once; the object's body is piped in when it answers.
    const out = new PassThrough({ highWaterMark: 1024 * 1024 });
    this.#client
      .send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal: abortedWith(out) })
      .then((reply) => pipeline(bodyOf(reply.Body, key), out))
      .catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
    return out;
  }

  async readAll(sha256: string, size: number): Promise<Buffer> {
    const key = this.#key(sha256);
    const reply = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
    if (!reply.Body) throw new Error(`blob ${sha256} has no body`);
    const bytes = Buffer.from(await reply.Body.transformToByteArray());
    if (bytes.length !== size) throw new Error(`blob ${sha256} is ${bytes.length} bytes, not ${size}`);
    return bytes;
  }

  async remove(sha256: string, ifOlderThan?: Date): Promise<boolean> {
    const key = this.#key(sha256);
    const stored = await this.#lastModified(key);
    if (stored === undefined) return false;
    if (ifOlderThan && stored.getTime() >= ifOlderThan.getTime()) return false;
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    return true;
  }

  async names(olderThan?: Date): Promise<string[]> {
    const found: string[] = [];
    for await (const object of this.#objects(this.#prefix)) {
      const name = object.Key?.slice(this.#prefix.length) ?? '';
      if (!isBlobName(name)) continue;
      if (olderThan && !(object.LastModified && object.LastModified.getTime() < olderThan.getTime())) continue;
      found.push(name);
    }
    return found;
  }

  async scopes(): Promise<string[]> {
    const under = `${this.#prefix}${SCOPES_FOLDER}/`;
    const found = new Set<string>();
    for await (const object of this.#objects(under)) {
      const name = object.Key?.slice(under.length).split('/')[0] ?? '';
      if (isScopeName(name)) found.add(name);
    }
    return [...found];
  }

  /** Every object under `prefix`, page by page. */
  async *#objects(prefix: string) {
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token }),
      );
      yield* page.Contents ?? [];
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  clearTemporary(olderThan?: Date): Promise<void> {
    return clearFolder(this.#stagingDir, olderThan);
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#turns.run(work);
  }

  scope(name: string): ScopedBlobStore {
    assertScopeName(name);
    return new S3Scope({
      client: this.#client,
      bucket: this.#bucket,
      prefix: `${this.#prefix}${SCOPES_FOLDER}/${name}/`,
      stagingDir: this.#stagingDir,
    });
  }

  #key(sha256: string): string {
    assertBlobName(sha256);
    return `${this.#prefix}${sha256}`;
  }

  async #lastModified(key: string): Promise<Date | undefined> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return head.LastModified ?? new Date(0);
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') return undefined;
      throw error;
    }
  }
}

/** A scoped store under a prefix of its own, removed object by object (a bucket has no folders to remove). */
class S3Scope extends S3BlobStore implements ScopedBlobStore {
  async drop(): Promise<void> {
    for (const name of await this.names()) await this.remove(name);
  }
}

/** The SDK's body as a Node stream (it is one on Node; anything else is a surprise). */
function bodyOf(body: unknown, key: string): Readable {
  if (body instanceof Readable) return body;
  throw new Error(`object ${key} has no readable body`);
}

/** Aborts the request when the reader goes away before the body is read. */
function abortedWith(stream: PassThrough): AbortSignal {
  const controller = new AbortController();
  stream.once('close', () => {
    if (!stream.readableEnded) controller.abort();
  });
  return controller.signal;
}
