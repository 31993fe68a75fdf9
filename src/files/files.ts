import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { removeOrphans } from '../artifacts/blob-collection.js';
import type { Delivery } from '../artifacts/delivery.js';
import type { AppContext } from '../context.js';
import { type AppError, NotFound, PayloadTooLarge } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { cleanFileName, mimeTypeFor } from './file-names.js';
import {
  countInWorkspace,
  deleteInputFiles,
  endKeepingForGood,
  expiredFiles,
  filePage,
  findInWorkspace,
  type InputFileRow,
  insertInputFile,
} from './files.store.js';
import { checkFileRoom, holdWorkspace, noRoomLeft } from './storage-quota.js';

/** An upload no run was given is deleted this long after it arrived. */
export const UNATTACHED_LIFETIME_MS = 7 * 24 * 3_600_000;
/** Expired files deleted per statement by the sweep; it goes on until none are left. */
const SWEEP_BATCH = 200;

export interface FileView {
  id: string;
  filename: string;
  size: number;
  mimeType: string;
  sha256: string;
  createdAt: string;
  expiresAt: string | null;
}

export function fileView(row: InputFileRow): FileView {
  return {
    id: row.id,
    filename: row.filename,
    size: Number(row.size),
    mimeType: row.mime_type,
    sha256: row.sha256,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** An upload as it arrives: the name and type the client gave (if any) and the bytes, streamed. */
export interface Upload {
  filename: string | undefined;
  statedType: string | undefined;
  bytes: AsyncIterable<Buffer>;
}

function tooLarge(limit: number): PayloadTooLarge {
  return new PayloadTooLarge(
    `The file is larger than this server's upload limit of ${limit} bytes, so nothing was stored. Send a smaller file, or ask the operator to raise FILE_UPLOAD_LIMIT.`,
  );
}

/** The same bytes, failing with `refusal` the moment they pass `limit`: nothing past it is read. */
async function* limited(source: AsyncIterable<Buffer>, limit: number, refusal: () => Promise<AppError>): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > limit) throw await refusal();
    yield chunk;
  }
}

/**
 * Removes a blob an upload committed but could not record, unless something references it
 * (the commit may have gone through unseen). Tried in the background while the database
 * is unreachable, for about half a minute; past that, the orphan sweep takes it.
 */
async function removeWhenUnreferenced(ctx: Pick<AppContext, 'db' | 'blobs' | 'config'>, sha256: string): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      await ctx.blobs.exclusive(() => removeOrphans(ctx, [sha256]));
      return;
    } catch {
      await sleep(100 * 2 ** attempt, undefined, { ref: false });
    }
  }
}

/**
 * Stores an upload in the caller's workspace. The bytes are hashed on their way to a
 * temporary file and stored as a blob under their SHA-256 only when whole, within
 * FILE_UPLOAD_LIMIT and within the workspace's room (WORKSPACE_FILE_LIMIT and
 * WORKSPACE_STORAGE_LIMIT_BYTES); a refused upload leaves nothing behind. The room is looked
 * at before the body is read (a full workspace reads none of it), and counted again with the
 * workspace held when the file is recorded, since other uploads may have filled it meanwhile.
 */
export async function uploadFile(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'control'>,
  caller: Caller,
  upload: Upload,
  declaredLength?: number,
): Promise<FileView> {
  const limit = ctx.config.fileUploadLimitBytes;
  const room = ctx.config.workspaceStorage;
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge(limit);
  const left = await checkFileRoom(ctx.db, room, caller.workspaceId, declaredLength);
  const refusal = async () => (left < limit ? noRoomLeft(ctx.db, room, caller.workspaceId) : tooLarge(limit));
  const staged = await ctx.blobs.stage(Readable.from(limited(upload.bytes, Math.min(limit, left), refusal)));
  const filename = cleanFileName(upload.filename ?? '');
  const now = ctx.clock.now();
  const row: Omit<InputFileRow, 'number'> = {
    id: randomUUID(),
    workspace_id: caller.workspaceId,
    user_id: caller.userId,
    filename,
    size: staged.size,
    mime_type: mimeTypeFor(filename, upload.statedType),
    sha256: staged.sha256,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + UNATTACHED_LIFETIME_MS).toISOString(),
  };
  let committed = false;
  try {
    // Committed and recorded under the store's lock, so no collection runs in between.
    await ctx.blobs.exclusive(() =>
      ctx.db.transaction().execute(async (trx) => {
        await holdWorkspace(trx, caller.workspaceId);
        await checkFileRoom(trx, room, caller.workspaceId, staged.size);
        await ctx.blobs.commit(staged);
        committed = true;
        await insertInputFile(trx, row);
      }),
    );
  } catch (error) {
    await ctx.blobs.discard(staged);
    // A blob stored for a row that did not commit (a cut connection) goes once the database
    // answers, not at the next start's sweep: no quota counts it. One the row did record stays.
    if (committed) void removeWhenUnreferenced(ctx, staged.sha256);
    throw error;
  }
  invalidate(ctx, caller.workspaceId, ['files']);
  return fileView({ ...row, number: 0 });
}

export async function listFiles(ctx: Pick<AppContext, 'db'>, caller: Caller, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    filePage(ctx.db, caller.workspaceId, limit, offset),
    countInWorkspace(ctx.db, caller.workspaceId),
  ]);
  return { items: rows.map(fileView), total };
}

async function fileOf(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<InputFileRow> {
  const file = await findInWorkspace(ctx.db, caller.workspaceId, id);
  if (!file) throw new NotFound('File not found: it may have been deleted or have expired. Upload it again.');
  return file;
}

export async function fileDetail(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<FileView> {
  return fileView(await fileOf(ctx, caller, id));
}

/** The file's bytes, with the type it was stored with and its name for a download. */
export async function fileContent(ctx: Pick<AppContext, 'db' | 'blobs'>, caller: Caller, id: string): Promise<Delivery> {
  const file = await fileOf(ctx, caller, id);
  return { body: ctx.blobs.read(file.sha256), contentType: file.mime_type, size: Number(file.size), fileName: file.filename };
}

/** Deletes the file, and its blob when nothing else uses it; runs that were given it keep their record. */
export async function removeFile(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config' | 'control' | 'clock'>,
  caller: Caller,
  id: string,
): Promise<void> {
  const file = await fileOf(ctx, caller, id);
  await ctx.blobs.exclusive(async () => {
    await deleteInputFiles(ctx.db, [file.id]);
    await removeOrphans(ctx, [file.sha256]);
  });
  invalidate(ctx, caller.workspaceId, ['files']);
}

/**
 * Deletes every file whose expiry has passed (by the injected clock), with blobs nothing
 * else uses. Files an older version kept for good are first given the attached files'
 * retention from now. Returns how many went.
 */
export async function sweepExpiredFiles(ctx: Pick<AppContext, 'db' | 'blobs' | 'config' | 'clock'>): Promise<number> {
  const nowMs = ctx.clock.nowMs();
  const nowIso = new Date(nowMs).toISOString();
  await endKeepingForGood(ctx.db, new Date(nowMs + ctx.config.attachedFileRetentionMs).toISOString());
  let removed = 0;
  for (;;) {
    const expired = await expiredFiles(ctx.db, nowIso, SWEEP_BATCH);
    if (expired.length === 0) return removed;
    await ctx.blobs.exclusive(async () => {
      await deleteInputFiles(
        ctx.db,
        expired.map((file) => file.id),
      );
      await removeOrphans(
        ctx,
        expired.map((file) => file.sha256),
      );
    });
    removed += expired.length;
  }
}
