import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/artifacts/blob-store.js';
import { blobStoreFor } from '../../src/artifacts/blob-store-for.js';
import { S3BlobStore } from '../../src/artifacts/s3-blob-store.js';
import { ConfigError } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-blob-settings-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('where artifact files live', () => {
  it('by default in folders of DATA_DIR; BLOB_DIR and PUBLIC_DIR move them', async () => {
    const embedded = await loadConfig({ DATA_DIR: dir });
    expect(embedded.blobs).toEqual({ kind: 'folder', dir: path.join(dir, 'blobs') });
    expect(embedded.publicDir).toBe(path.join(dir, 'public'));
    expect(blobStoreFor(embedded)).toBeInstanceOf(LocalBlobStore);
    const shared = await loadConfig({ DATA_DIR: dir, BLOB_DIR: '/mnt/skillet/blobs', PUBLIC_DIR: '/mnt/skillet/public' });
    expect(shared.blobs).toEqual({ kind: 'folder', dir: '/mnt/skillet/blobs' });
    expect(shared.publicDir).toBe('/mnt/skillet/public');
  });

  it('in a bucket when BLOB_S3_BUCKET is set, with path-style addressing at an endpoint', async () => {
    const config = await loadConfig({
      DATA_DIR: dir,
      BLOB_S3_BUCKET: 'artifacts',
      BLOB_S3_ENDPOINT: 'http://minio:9000/',
      BLOB_S3_PREFIX: 'skillet/blobs',
      BLOB_S3_ACCESS_KEY_ID: 'key',
      BLOB_S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect(config.blobs).toEqual({
      kind: 's3',
      bucket: 'artifacts',
      prefix: 'skillet/blobs/',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
    });
    expect(blobStoreFor(config)).toBeInstanceOf(S3BlobStore);
  });

  it("on AWS, the region and credentials come from AWS's own settings unless given", async () => {
    const config = await loadConfig({ DATA_DIR: dir, BLOB_S3_BUCKET: 'artifacts', AWS_REGION: 'eu-west-3' });
    expect(config.blobs).toMatchObject({
      region: 'eu-west-3',
      prefix: '',
      endpoint: undefined,
      forcePathStyle: false,
      credentials: undefined,
    });
    const named = await loadConfig({ DATA_DIR: dir, BLOB_S3_BUCKET: 'b', BLOB_S3_REGION: 'auto', AWS_REGION: 'eu-west-3' });
    expect(named.blobs).toMatchObject({ region: 'auto' });
  });

  it('reads the S3_* names DESIGN §12 first gave them', async () => {
    const config = await loadConfig({ DATA_DIR: dir, S3_BUCKET: 'b', S3_ENDPOINT: 'https://r2.example', S3_REGION: 'auto' });
    expect(config.blobs).toMatchObject({ kind: 's3', bucket: 'b', endpoint: 'https://r2.example', region: 'auto' });
  });

  it('refuses settings that contradict each other or cannot work', async () => {
    for (const [env, message] of [
      [{ BLOB_S3_BUCKET: 'b', BLOB_DIR: '/mnt/blobs' }, 'not both'],
      [{ BLOB_S3_BUCKET: 'b', BLOB_S3_ACCESS_KEY_ID: 'key' }, 'go together'],
      [{ BLOB_S3_BUCKET: 'b', BLOB_S3_ENDPOINT: 'minio:9000' }, 'BLOB_S3_ENDPOINT'],
      [{ BLOB_S3_BUCKET: 'b', BLOB_S3_PREFIX: '/abs' }, 'BLOB_S3_PREFIX'],
      [{ BLOB_S3_BUCKET: 'b', BLOB_S3_FORCE_PATH_STYLE: 'maybe' }, 'BLOB_S3_FORCE_PATH_STYLE'],
    ] as const) {
      const failure = loadConfig({ DATA_DIR: dir, ...env });
      await expect(failure).rejects.toBeInstanceOf(ConfigError);
      await expect(failure).rejects.toThrow(message);
    }
  });
});
