import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import type { BlobStore } from '../ports/blob-store.js';
import { LocalBlobStore } from './blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

/** The blob store the settings name: a folder (BLOB_DIR) or an S3-compatible bucket. */
export function blobStoreFor(config: Pick<Config, 'blobs' | 'dataDir'>): BlobStore {
  const settings = config.blobs;
  if (settings.kind === 'folder') return new LocalBlobStore(settings.dir);
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    // Checksums only where the API demands them: several S3-compatible stores refuse the
    // SDK's default streaming (aws-chunked) uploads. Each upload carries its SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return new S3BlobStore({
    client,
    bucket: settings.bucket,
    prefix: settings.prefix,
    // Staging is per node: each node uploads only what it staged itself.
    stagingDir: path.join(config.dataDir, 'blob-staging'),
  });
}
