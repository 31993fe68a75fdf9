import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { insertFiles } from '../../src/artifacts/artifacts.store.js';
import { ORPHAN_MIN_AGE_MS, REFRESH_AFTER_MS } from '../../src/artifacts/blob-ages.js';
import { sweepOrphanBlobs } from '../../src/artifacts/blob-collection.js';
import { LocalBlobStore } from '../../src/artifacts/blob-store.js';
import { recoverArtifacts } from '../../src/artifacts/recovery.js';
import { S3BlobStore } from '../../src/artifacts/s3-blob-store.js';
import type { AppContext } from '../../src/context.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import { type FakeS3, fakeS3 } from '../fakes/s3.js';
import { withDomain } from '../helpers/domain.js';
import { anArtifact } from '../helpers/rows.js';

// REDIS_URL only marks the context as a cluster's: a domain context opens no connection.
const it = withDomain({ REDIS_URL: 'redis://127.0.0.1:1' });

const HOUR = 60 * 60_000;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const blob = (text: string) => Readable.from([Buffer.from(text)]);

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A store under test, and how a test makes one of its blobs (or temporary files) look old. */
interface Subject {
  store: BlobStore;
  stagingDir: string;
  makeOld(sha256: string, ms: number): Promise<void>;
}

let s3: FakeS3;
let scratch: string;
beforeAll(async () => {
  s3 = await fakeS3({ pageSize: 2 });
  scratch = await mkdtemp(path.join(tmpdir(), 'skillet-blob-stores-'));
});
afterAll(async () => {
  await s3.close();
  await rm(scratch, { recursive: true, force: true });
});

let made = 0;
const subjects = {
  folder: () => {
    const root = path.join(scratch, `folder-${++made}`);
    const store = new LocalBlobStore(root);
    return {
      store,
      stagingDir: path.join(root, 'tmp'),
      async makeOld(name, ms) {
        const then = new Date(Date.now() - ms);
        await utimes(store.pathOf(name), then, then);
      },
    };
  },
  s3: () => {
    const prefix = `run-${++made}/blobs/`;
    const client = new S3Client({
      endpoint: s3.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const stagingDir = path.join(scratch, `staging-${made}`);
    return {
      store: new S3BlobStore({ client, bucket: s3.bucket, prefix, stagingDir }),
      stagingDir,
      async makeOld(name, ms) {
        s3.age(`${prefix}${name}`, ms);
      },
    };
  },
} satisfies Record<string, () => Subject>;

for (const [kind, make] of Object.entries(subjects)) {
  describe(`the ${kind} blob store`, () => {
    it('a staged blob is hashed but has no name until it is committed; then it reads back whole', async () => {
      const { store } = make();
      const data = Buffer.from('hello blobs');
      const staged = await store.stage(Readable.from([data.subarray(0, 5), data.subarray(5)]));
      expect(staged).toMatchObject({ sha256: sha256(data), size: data.length });
      expect(await store.names()).toEqual([]);
      expect(existsSync(staged.tempPath)).toBe(true);
      await store.commit(staged);
      expect(existsSync(staged.tempPath)).toBe(false);
      expect(await store.names()).toEqual([sha256(data)]);
      expect(await text(store.read(sha256(data)))).toBe('hello blobs');
      expect((await store.readAll(sha256(data), data.length)).toString()).toBe('hello blobs');
    });

    it('the same bytes committed twice are one blob; remove says whether it removed one', async () => {
      const { store } = make();
      const name = sha256(Buffer.from('same'));
      await store.commit(await store.stage(blob('same')));
      await store.commit(await store.stage(blob('same')));
      expect(await store.names()).toEqual([name]);
      expect(await store.remove(name)).toBe(true);
      expect(await store.remove(name)).toBe(false);
      expect(await store.names()).toEqual([]);
    });

    it("a scoped store's blobs are its own: not among the store's names, listed as a scope, and dropped whole", async () => {
      const { store } = make();
      await store.commit(await store.stage(blob('shared')));
      const scoped = store.scope('checkpoints-1');
      await scoped.commit(await scoped.stage(blob('scoped one')));
      await scoped.commit(await scoped.stage(blob('scoped two')));
      await scoped.commit(await scoped.stage(blob('shared')));
      expect(await store.names()).toEqual([sha256(Buffer.from('shared'))]);
      expect((await scoped.names()).sort()).toEqual(
        [sha256(Buffer.from('scoped one')), sha256(Buffer.from('scoped two')), sha256(Buffer.from('shared'))].sort(),
      );
      expect(await store.scopes()).toEqual(['checkpoints-1']);
      expect(await text(scoped.read(sha256(Buffer.from('scoped one'))))).toBe('scoped one');
      await scoped.drop();
      expect(await store.scopes()).toEqual([]);
      expect(await store.names()).toEqual([sha256(Buffer.from('shared'))]);
      expect(() => store.scope('../escape')).toThrow(/not a scope name/);
    });

    it('committing one staged blob again is harmless: a retry after the transaction recording it was cut off', async () => {
      const { store } = make();
      const staged = await store.stage(blob('retried'));
      await store.commit(staged);
      await store.commit(staged);
      expect(await store.names()).toEqual([sha256(Buffer.from('retried'))]);
      expect(await text(store.read(staged.sha256))).toBe('retried');
    });

    it('a discarded blob never gets a name, and a failed stage leaves nothing', async () => {
      const { store, stagingDir } = make();
      const staged = await store.stage(blob('not wanted'));
      await store.discard(staged);
      expect(existsSync(staged.tempPath)).toBe(false);
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('the writer died'));
        },
      });
      await expect(store.stage(failing)).rejects.toThrow('the writer died');
      await store.clearTemporary();
      expect(existsSync(stagingDir)).toBe(false);
      expect(await store.names()).toEqual([]);
    });

    it('lists every blob across pages, and only the old ones when asked', async () => {
      const { store, makeOld } = make();
      const names: string[] = [];
      for (const word of ['one', 'two', 'three', 'four', 'five']) {
        await store.commit(await store.stage(blob(word)));
        names.push(sha256(Buffer.from(word)));
      }
      expect((await store.names()).sort()).toEqual([...names].sort());
      await makeOld(names[0] as string, 2 * HOUR);
      await makeOld(names[3] as string, 2 * HOUR);
      const cutoff = new Date(Date.now() - HOUR);
      expect((await store.names(cutoff)).sort()).toEqual([names[0], names[3]].sort());
      expect(await store.remove(names[1] as string, cutoff)).toBe(false);
      expect(await store.remove(names[0] as string, cutoff)).toBe(true);
      expect((await store.names()).length).toBe(4);
    });

    it('committing bytes already stored makes an old blob young again', async () => {
      const { store, makeOld } = make();
      const name = sha256(Buffer.from('again'));
      await store.commit(await store.stage(blob('again')));
      await makeOld(name, REFRESH_AFTER_MS + 60_000);
      expect(await store.names(new Date(Date.now() - REFRESH_AFTER_MS))).toEqual([name]);
      await store.commit(await store.stage(blob('again')));
      expect(await store.names(new Date(Date.now() - REFRESH_AFTER_MS))).toEqual([]);
    });

    it('only young temporary files survive clearing with an age', async () => {
      const { store, stagingDir } = make();
      const young = await store.stage(blob('young'));
      const old = await store.stage(blob('old'));
      const then = new Date(Date.now() - 2 * HOUR);
      await utimes(old.tempPath, then, then);
      await store.clearTemporary(new Date(Date.now() - HOUR));
      expect([existsSync(young.tempPath), existsSync(old.tempPath)]).toEqual([true, false]);
      await store.clearTemporary();
      expect(existsSync(stagingDir)).toBe(false);
    });

    it('refuses a name that is not a SHA-256, so none reaches outside the store', async () => {
      const { store } = make();
      for (const name of ['../x', '../../etc/passwd', 'ab', `${'a'.repeat(63)}/`, 'A'.repeat(64)]) {
        expect(() => store.read(name), name).toThrow('not a blob name');
        await expect(store.readAll(name, 1), name).rejects.toThrow('not a blob name');
        await expect(store.remove(name), name).rejects.toThrow('not a blob name');
      }
    });

    it('a reader may stop early, and a large blob reads back whole', async () => {
      const { store } = make();
      const data = Buffer.alloc(5 * 1024 * 1024 + 3, 7);
      await store.commit(await store.stage(Readable.from([data])));
      for await (const chunk of store.read(sha256(data))) {
        expect((chunk as Buffer).length).toBeGreaterThan(0);
        break;
      }
      expect((await store.readAll(sha256(data), data.length)).equals(data)).toBe(true);
      await expect(store.readAll(sha256(data), data.length + 1)).rejects.toThrow();
    });

    it('does not take a staged blob whose file is gone for one committed before: the commit fails, and stores nothing', async () => {
      const { store } = make();
      const staged = await store.stage(blob('vanished'));
      await store.discard(staged);
      await expect(store.commit(staged)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await store.names()).toEqual([]);
    });

    it('reading a blob that is not there fails the stream', async () => {
      const { store } = make();
      await expect(text(store.read(sha256(Buffer.from('never stored'))))).rejects.toThrow();
    });
  });
}

describe('collecting unreferenced blobs in a cluster', () => {
  for (const [kind, make] of Object.entries(subjects)) {
    it(`${kind}: start-up leaves every blob to the sweep, which takes only old unreferenced ones`, async ({ ctx, db }) => {
      const { store, makeOld } = make();
      const cluster: AppContext = { ...ctx, blobs: store };
      const [young, old, used] = ['young orphan', 'old orphan', 'old but used'].map((word) => sha256(Buffer.from(word))) as [
        string,
        string,
        string,
      ];
      for (const word of ['young orphan', 'old orphan', 'old but used']) await store.commit(await store.stage(blob(word)));
      const artifact = await anArtifact(db);
      await insertFiles(db, [
        { artifact_id: artifact.id, path: 'a.txt', sha256: used, crc32: 0, size: 12, mime_type: 'text/plain' },
      ]);
      await makeOld(old, ORPHAN_MIN_AGE_MS + 60_000);
      await makeOld(used, ORPHAN_MIN_AGE_MS + 60_000);
      // Another node's upload in progress: a young temporary file in the shared staging folder.
      const staging = await store.stage(blob('being staged elsewhere'));

      expect(await recoverArtifacts(cluster)).toMatchObject({ removedBlobs: 0 });
      expect((await store.names()).sort()).toEqual([young, old, used].sort());
      expect(existsSync(staging.tempPath)).toBe(true);

      // One a node that crashed long ago left there goes with the sweep.
      const abandoned = await store.stage(blob('left by a crash'));
      const then = new Date(Date.now() - 2 * HOUR);
      await utimes(abandoned.tempPath, then, then);

      expect(await sweepOrphanBlobs(cluster)).toBe(1);
      expect((await store.names()).sort()).toEqual([young, used].sort());
      expect([existsSync(staging.tempPath), existsSync(abandoned.tempPath)]).toEqual([true, false]);
    });

    it(`${kind}: one process (embedded mode) removes every unreferenced blob at start-up, however young`, async ({ ctx }) => {
      const { store, stagingDir } = make();
      const embedded: AppContext = { ...ctx, blobs: store, config: { ...ctx.config, redisUrl: undefined } };
      await store.commit(await store.stage(blob('just written, never recorded')));
      await store.stage(blob('cut off while staging'));
      expect(await recoverArtifacts(embedded)).toMatchObject({ removedBlobs: 1 });
      expect(await store.names()).toEqual([]);
      expect(existsSync(stagingDir)).toBe(false);
    });
  }

  it('a publish staging folder on the shared public folder is left alone while young', async ({ ctx }) => {
    const root = ctx.config.publicDir;
    await mkdir(path.join(root, '.staging-young'), { recursive: true });
    await mkdir(path.join(root, '.staging-old'), { recursive: true });
    await writeFile(path.join(root, '.staging-young', 'index.html'), 'x');
    const then = new Date(Date.now() - 2 * HOUR);
    await utimes(path.join(root, '.staging-old'), then, then);
    await recoverArtifacts(ctx);
    expect([existsSync(path.join(root, '.staging-young')), existsSync(path.join(root, '.staging-old'))]).toEqual([true, false]);
  });
});
