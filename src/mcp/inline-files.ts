import type { AppContext } from '../context.js';
import { InvalidInput, PayloadTooLarge } from '../errors.js';
import { type FileView, removeFile, uploadFile } from '../files/files.js';
import type { Caller } from '../ports/callers.js';

/** DESIGN §15: what run_skill and upload_file take inline, decoded, all files together. */
const INLINE_BYTES_MAX = 5 * 1024 * 1024;
/** INLINE_BYTES_MAX as base64 is 6.7 MiB (4 characters per 3 bytes); the rest is the call around it. */
const MCP_BODY_MIN = 8 * 1024 * 1024;

/** The body an MCP request may have: room for inline files, or the server's own limit when that is larger. */
export function mcpBodyLimit(serverLimit: number): number {
  return Math.max(serverLimit, MCP_BODY_MIN);
}

export interface InlineFile {
  filename: string;
  contentBase64: string;
}

/** Standard base64, padded or not; Node would otherwise decode nonsense by skipping what it cannot read. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decoded(file: InlineFile): Buffer {
  // Encoders that wrap lines (MIME's 76 characters) are common; the breaks carry nothing.
  const text = file.contentBase64.replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length % 4 === 1) {
    throw new InvalidInput(
      `The content of ${JSON.stringify(file.filename.slice(0, 100))} is not base64. Encode the file's bytes as standard base64 and try again.`,
    );
  }
  return Buffer.from(text, 'base64');
}

/**
 * Decodes inline files, refusing the lot before anything is stored when any is not base64
 * or together they pass INLINE_BYTES_MAX. The size is judged from the text first, so an
 * oversized call is refused without decoding it.
 */
export function decodeInlineFiles(files: InlineFile[], what = 'Inline files'): Buffer[] {
  const claimed = files.reduce((sum, file) => sum + Math.floor((file.contentBase64.length * 3) / 4), 0);
  const refuse = (bytes: number) =>
    new PayloadTooLarge(
      `${what} may come to at most ${INLINE_BYTES_MAX} bytes through MCP; this comes to ${bytes}, so nothing was stored. Upload larger files over the files API (skillet files upload, or the app's run form) and pass their ids in files.`,
    );
  // Padding makes the estimate at most 2 bytes a file too high: checked exactly below.
  if (claimed > INLINE_BYTES_MAX + 2 * files.length) throw refuse(claimed);
  const buffers = files.map(decoded);
  const total = buffers.reduce((sum, buffer) => sum + buffer.length, 0);
  if (total > INLINE_BYTES_MAX) throw refuse(total);
  return buffers;
}

/** Stores one decoded file in the caller's workspace through the files domain (names cleaned, FILE_UPLOAD_LIMIT held). */
export function storeInlineFile(ctx: AppContext, caller: Caller, filename: string, bytes: Buffer): Promise<FileView> {
  async function* once() {
    yield bytes;
  }
  return uploadFile(ctx, caller, { filename, statedType: undefined, bytes: once() }, bytes.length);
}

/**
 * Stores the files, then does `work` with their records (creating the execution they are
 * given to). When either fails, the files stored so far are deleted again: a refused run
 * leaves no uploads behind.
 */
export async function withStoredFiles<T>(
  ctx: AppContext,
  caller: Caller,
  files: InlineFile[],
  work: (stored: FileView[]) => Promise<T>,
): Promise<T> {
  const buffers = decodeInlineFiles(files);
  const stored: FileView[] = [];
  try {
    for (const [index, file] of files.entries()) {
      stored.push(await storeInlineFile(ctx, caller, file.filename, buffers[index] ?? Buffer.alloc(0)));
    }
    return await work(stored);
  } catch (error) {
    await Promise.all(stored.map((file) => removeFile(ctx, caller, file.id).catch(() => undefined)));
    throw error;
  }
}
