import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ArtifactFileRow } from './artifacts.store.js';
import type { BlobStore } from './blob-store.js';

export interface ZipDownload {
  stream: Readable;
  /** The archive's exact length, known before a byte is written (entries are stored, not deflated). */
  size: number;
}

/**
 * A bundle as a ZIP archive, produced while it is sent: each file's blob is opened only
 * when the archive reaches it, so memory stays flat whatever the bundle's size. Entries
 * are stored uncompressed: most bundle bytes are already compressed media, and deflate
 * would cost more CPU than the transfer it saves on a local network.
 */
export function zipBundle(blobs: BlobStore, files: ArtifactFileRow[], modifiedAt: Date): Promise<ZipDownload> {
  const zip = new ZipFile();
  for (const file of files) {
    zip.addReadStreamLazy(file.path, { size: Number(file.size), mtime: modifiedAt, compress: false }, (callback) =>
      callback(null, blobs.read(file.sha256)),
    );
  }
  // A blob that cannot be read ends the archive early: the client sees a broken download, not a hang.
  zip.on('error', (error: Error) => (zip.outputStream as Readable).destroy(error));
  return new Promise((resolve) => {
    // yazl predicts a ZIP64 end record once the central directory passes 64 KiB (about 900
    // entries) but writes one only past 4 GiB; forcing the record keeps the predicted
    // Content-Length true. Every current unzip tool reads it.
    zip.end({ forceZip64Format: true, comment: '' }, ((size: number) =>
      resolve({ stream: zip.outputStream as Readable, size })) as () => void);
  });
}
