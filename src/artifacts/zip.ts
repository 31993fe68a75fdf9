import { Readable } from 'node:stream';
import type { BlobStore } from '../ports/blob-store.js';

/** One file of the archive: its path in it, where its bytes are, and what is known of them. */
export interface ZipEntry {
  path: string;
  sha256: string;
  size: number;
  crc32: number;
}

interface ZipDownload {
  stream: Readable;
  /** The archive's exact length, known before a byte is sent. */
  size: number;
}

const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;
const UTF8_NAMES = 0x0800;
const UNIX_FILE = (0o100644 << 16) >>> 0;
/** Files up to this size are read whole, a few ahead of the one being sent. */
const READ_AHEAD_BYTES = 1024 * 1024;
const READ_AHEAD_FILES = 8;
const OUTPUT_CHUNK = 256 * 1024;

interface Placed extends ZipEntry {
  name: Buffer;
  offset: number;
}

function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
  };
}

const needsZip64 = (entry: Placed) => entry.size >= MAX_32 || entry.offset >= MAX_32;

function localHeader(entry: Placed, stamp: { date: number; time: number }): Buffer {
  const zip64 = entry.size >= MAX_32;
  const header = Buffer.alloc(30 + entry.name.length + (zip64 ? 20 : 0));
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(zip64 ? 45 : 20, 4);
  header.writeUInt16LE(UTF8_NAMES, 6);
  header.writeUInt16LE(0, 8); // stored
  header.writeUInt16LE(stamp.time, 10);
  header.writeUInt16LE(stamp.date, 12);
  header.writeUInt32LE(entry.crc32, 14);
  header.writeUInt32LE(zip64 ? MAX_32 : entry.size, 18);
  header.writeUInt32LE(zip64 ? MAX_32 : entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  header.writeUInt16LE(zip64 ? 20 : 0, 28);
  entry.name.copy(header, 30);
  if (zip64) {
    const extra = 30 + entry.name.length;
    header.writeUInt16LE(0x0001, extra);
    header.writeUInt16LE(16, extra + 2);
    header.writeBigUInt64LE(BigInt(entry.size), extra + 4);
    header.writeBigUInt64LE(BigInt(entry.size), extra + 12);
  }
  return header;
}

function centralHeader(entry: Placed, stamp: { date: number; time: number }): Buffer {
  const bigSize = entry.size >= MAX_32;
  const bigOffset = entry.offset >= MAX_32;
  const extraLength = bigSize || bigOffset ? 4 + (bigSize ? 16 : 0) + (bigOffset ? 8 : 0) : 0;
  const header = Buffer.alloc(46 + entry.name.length + extraLength);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE((3 << 8) | 45, 4); // made on Unix, spec 4.5
  header.writeUInt16LE(needsZip64(entry) ? 45 : 20, 6);
  header.writeUInt16LE(UTF8_NAMES, 8);
  header.writeUInt16LE(0, 10);
  header.writeUInt16LE(stamp.time, 12);
  header.writeUInt16LE(stamp.date, 14);
  header.writeUInt32LE(entry.crc32, 16);
  header.writeUInt32LE(bigSize ? MAX_32 : entry.size, 20);
  header.writeUInt32LE(bigSize ? MAX_32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extraLength, 30);
  header.writeUInt32LE(UNIX_FILE, 38);
  header.writeUInt32LE(bigOffset ? MAX_32 : entry.offset, 42);
  entry.name.copy(header, 46);
  if (extraLength > 0) {
    let at = 46 + entry.name.length;
    header.writeUInt16LE(0x0001, at);
    header.writeUInt16LE(extraLength - 4, at + 2);
    at += 4;
    if (bigSize) {
      header.writeBigUInt64LE(BigInt(entry.size), at);
      header.writeBigUInt64LE(BigInt(entry.size), at + 8);
      at += 16;
    }
    if (bigOffset) header.writeBigUInt64LE(BigInt(entry.offset), at);
  }
  return header;
}

/** The end records: ZIP64 ones when a count or offset does not fit, then the classic one. */
function endRecords(count: number, directoryOffset: number, directorySize: number): Buffer {
  const zip64 = count >= MAX_16 || directoryOffset >= MAX_32 || directorySize >= MAX_32;
  const end = Buffer.alloc((zip64 ? 76 : 0) + 22);
  let at = 0;
  if (zip64) {
    end.writeUInt32LE(0x06064b50, 0);
    end.writeBigUInt64LE(44n, 4);
    end.writeUInt16LE((3 << 8) | 45, 12);
    end.writeUInt16LE(45, 14);
    end.writeBigUInt64LE(BigInt(count), 24);
    end.writeBigUInt64LE(BigInt(count), 32);
    end.writeBigUInt64LE(BigInt(directorySize), 40);
    end.writeBigUInt64LE(BigInt(directoryOffset), 48);
    end.writeUInt32LE(0x07064b50, 56);
    end.writeBigUInt64LE(BigInt(directoryOffset + directorySize), 64);
    end.writeUInt32LE(1, 72);
    at = 76;
  }
  end.writeUInt32LE(0x06054b50, at);
  end.writeUInt16LE(Math.min(count, MAX_16), at + 8);
  end.writeUInt16LE(Math.min(count, MAX_16), at + 10);
  end.writeUInt32LE(Math.min(directorySize, MAX_32), at + 12);
  end.writeUInt32LE(Math.min(directoryOffset, MAX_32), at + 16);
  return end;
}

/**
 * A bundle as a ZIP archive (entries stored, not deflated), produced while it is sent.
 * Each file's CRC-32 and size were recorded when it was stored, so every header is known
 * up front: no data descriptors, an exact Content-Length, and no checksum work per
 * download. Small files are read a few ahead of the one being sent; large ones stream.
 * Memory stays within READ_AHEAD_FILES × READ_AHEAD_BYTES whatever the bundle's size.
 *
 * Why not yazl (which DESIGN.md names): it computes every CRC-32 in JavaScript on every
 * download and reads one file at a time. On the 100 MB, 1,000-file benchmark bundle it
 * produced 160 to 200 MB/s with no network in the way, under a third of what a bare
 * server streaming the finished archive from disk delivers over HTTP; the target is 0.6.
 */
export function zipBundle(blobs: BlobStore, files: ZipEntry[], modifiedAt: Date): ZipDownload {
  const stamp = dosDateTime(modifiedAt);
  let offset = 0;
  const placed: Placed[] = files.map((file) => {
    const entry = { ...file, name: Buffer.from(file.path, 'utf8'), offset };
    offset += 30 + entry.name.length + (file.size >= MAX_32 ? 20 : 0) + file.size;
    return entry;
  });
  const directory = placed.map((entry) => centralHeader(entry, stamp));
  const directorySize = directory.reduce((total, header) => total + header.length, 0);
  const end = endRecords(placed.length, offset, directorySize);

  const readWhole = (entry: Placed) => {
    if (entry.size > READ_AHEAD_BYTES) return undefined;
    const reading = blobs.readAll(entry.sha256, entry.size);
    // Awaited in its turn; until then a failure must not count as unhandled.
    reading.catch(() => undefined);
    return reading;
  };
  async function* archive(): AsyncGenerator<Buffer> {
    const ahead = new Map<number, Promise<Buffer> | undefined>();
    // Small pieces (headers, small files) go out joined, in writes of about OUTPUT_CHUNK.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = () => {
      const joined = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return joined;
    };
    for (let i = 0; i < placed.length; i++) {
      for (let next = i; next < Math.min(placed.length, i + READ_AHEAD_FILES); next++) {
        if (!ahead.has(next)) ahead.set(next, readWhole(placed[next] as Placed));
      }
      const entry = placed[i] as Placed;
      const whole = ahead.get(i);
      ahead.delete(i);
      const header = localHeader(entry, stamp);
      pending.push(header);
      pendingBytes += header.length;
      if (whole) {
        const data = await whole;
        pending.push(data);
        pendingBytes += data.length;
        if (pendingBytes >= OUTPUT_CHUNK) yield take();
      } else {
        yield take();
        yield* blobs.read(entry.sha256) as AsyncIterable<Buffer>;
      }
    }
    pending.push(...directory, end);
    pendingBytes += directorySize + end.length;
    yield take();
  }
  return { stream: Readable.from(archive(), { objectMode: false }), size: offset + directorySize + end.length };
}
