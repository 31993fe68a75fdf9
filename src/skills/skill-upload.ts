import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { removeOrphans } from '../artifacts/blob-collection.js';
import { isBundlePath } from '../artifacts/bundle.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { Conflict, InvalidInput, PayloadTooLarge } from '../errors.js';
import { checkSkillRoom, holdWorkspace } from '../files/storage-quota.js';
import type { StagedBlob } from '../ports/blob-store.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { writeFolderFromBlobs } from './installed-skill-folder.js';
import { isSkillSlug, ManifestError, parseSkillManifest } from './manifest.js';
import { clearForgottenSkill, forgetSkill, type InstalledRow } from './skill-removal.js';
import { insertUploadedFiles } from './uploaded-skills.store.js';
import { isSlugTaken, recordInstalledSkill } from './workspace-skills.store.js';

const MB = 1024 * 1024;

/**
 * What one folder may hold: instructions, code and the fonts, templates and images a skill
 * ships with (the public document skills carry several MB of fonts), but not a dataset.
 */
export const UPLOAD_LIMITS = { files: 200, bytes: 30 * MB } as const;

/** Base64 makes the files a third larger; the rest is room for the paths and the JSON around them. */
export const UPLOAD_BODY_LIMIT = Math.ceil((UPLOAD_LIMITS.bytes * 4) / 3) + MB;

export interface UploadedFile {
  path: string;
  /** The file's bytes, base64-encoded. */
  content: string;
}

export interface InstalledFromFolder {
  slug: string;
  name: string;
  description: string;
  runtime: 'script' | 'agent';
  files: number;
}

type UploadContext = Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'skills' | 'control'>;

/** The folder's files, decoded and checked: relative paths, once each, within the limits. */
function decoded(files: UploadedFile[]): { path: string; bytes: Buffer }[] {
  if (files.length === 0) throw new InvalidInput('The folder is empty. A skill needs at least its SKILL.md.');
  if (files.length > UPLOAD_LIMITS.files) {
    throw new PayloadTooLarge(`A skill folder may hold at most ${UPLOAD_LIMITS.files} files; this one has ${files.length}.`);
  }
  const seen = new Set<string>();
  let total = 0;
  const decodedFiles = files.map((file) => {
    if (!isBundlePath(file.path)) {
      throw new InvalidInput(`“${file.path}” is not a path inside the folder. Use relative paths with forward slashes.`);
    }
    if (seen.has(file.path)) throw new InvalidInput(`“${file.path}” is in the folder twice. Send each file once.`);
    seen.add(file.path);
    const bytes = Buffer.from(file.content, 'base64');
    total += bytes.length;
    if (total > UPLOAD_LIMITS.bytes) {
      throw new PayloadTooLarge(
        `A skill folder may hold at most ${UPLOAD_LIMITS.bytes / MB} MB of files. Leave data and dependencies out of it.`,
      );
    }
    return { path: file.path, bytes };
  });
  checkWritable(files.map((file) => file.path));
  return decodedFiles;
}

/** The longest name of one file or folder that Linux file systems take (NAME_MAX), in bytes of UTF-8. */
const NAME_MAX_BYTES = 255;

/** A name as a message shows it: a name too long to write is too long to read in full. */
function shownName(name: string): string {
  const characters = Array.from(name);
  return characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : name;
}

/**
 * Paths that are relative and inside the folder can still be impossible to write: a name
 * over the file system's length, or a name that is a file and also a folder of another
 * path (`a` beside `a/b`). Checked here, before anything is stored, so the person hears
 * which name to change rather than the file system's error.
 */
function checkWritable(paths: string[]): void {
  const files = new Set(paths);
  for (const filePath of paths) {
    const names = filePath.split('/');
    const long = names.find((name) => Buffer.byteLength(name) > NAME_MAX_BYTES);
    if (long !== undefined) {
      throw new InvalidInput(
        `“${shownName(long)}” is longer than a file or folder name may be (${NAME_MAX_BYTES} bytes). Shorten it, then install again.`,
      );
    }
    for (let depth = 1; depth < names.length; depth++) {
      const folder = names.slice(0, depth).join('/');
      if (files.has(folder)) {
        throw new InvalidInput(
          `“${folder}” is both a file and a folder in this upload. A name can only be one of them: rename the file or the folder, then install again.`,
        );
      }
    }
  }
}

/** A slug the person chose, checked like the one a SKILL.md names: it becomes a folder's name. */
function chosenSlug(slug: string | undefined): string | undefined {
  if (slug === undefined || isSkillSlug(slug)) return slug;
  throw new InvalidInput(
    'The slug you chose cannot name a skill. Choose one of lower-case letters, digits and dashes (at most 63), starting with a letter or digit.',
  );
}

/** What a person does about a taken slug: choose one, where they are (the CLI or the API). */
function slugTaken(slug: string, builtIn: boolean, chosen: boolean): Conflict {
  const fact = builtIn
    ? `${slug} is the slug of one of this server's own skills, so yours needs another.`
    : `This workspace already has a skill called ${slug}.`;
  const remedy = chosen
    ? 'Choose another slug for yours.'
    : 'Install yours under a slug you choose: skillet skills install FOLDER --slug NAME, or the slug field of the request.';
  return new Conflict(`${fact} ${remedy}`);
}

function manifestOf(files: { path: string; bytes: Buffer }[], folderName: string) {
  const source = files.find((file) => file.path === 'SKILL.md');
  if (!source) throw new InvalidInput('The folder has no SKILL.md at its top. Every skill starts with one.');
  try {
    const manifest = parseSkillManifest(source.bytes.toString('utf8'), folderName);
    if (manifest.runtime === 'script' && !files.some((file) => file.path === manifest.entry)) {
      throw new InvalidInput(`SKILL.md names ${manifest.entry} as its entry, but the folder has no such file.`);
    }
    return manifest;
  } catch (error) {
    if (error instanceof ManifestError) throw new InvalidInput(`SKILL.md cannot be used: ${error.message}.`);
    throw error;
  }
}

/**
 * Installs a skill from a folder a person sends (the CLI's `skills install PATH`): its
 * files go to the blob store and are recorded, the skill's folder is written from them, and
 * the workspace runs it by its slug from then on, in the sandbox like any installed skill.
 * The slug is the one the person chose, else the SKILL.md's, else the folder's name; one the
 * server's own skills or another skill of the workspace use is a conflict that says how to
 * choose another (a public skill's folder is often named like a built-in: pdf, xlsx).
 * With `replacing` (an update, checked by changeableSkill), the folder takes that skill's
 * place under its slug in one transaction, its space and count freed first.
 */
export async function installFromFolder(
  ctx: UploadContext,
  caller: Caller,
  upload: { folderName: string; files: UploadedFile[]; slug?: string | undefined },
  replacing?: InstalledRow,
): Promise<InstalledFromFolder> {
  const chosen = chosenSlug(upload.slug);
  const files = decoded(upload.files);
  const manifest = manifestOf(files, chosen ?? upload.folderName);
  const slug = chosen ?? manifest.slug;
  if (ctx.skills.get(slug)) throw slugTaken(slug, true, chosen !== undefined);
  const taken = () => slugTaken(slug, false, chosen !== undefined);
  const room = ctx.config.workspaceStorage;
  const bytes = files.reduce((sum, file) => sum + file.bytes.length, 0);
  if (!replacing) {
    if (await isSlugTaken(ctx.db, caller.workspaceId, slug)) throw taken();
    await checkSkillRoom(ctx.db, room, caller.workspaceId, bytes);
  }
  let replaced: string[] = [];

  const dir = path.join(ctx.config.dataDir, 'installed-skills', caller.workspaceId, `${slug}-${randomBytes(4).toString('hex')}`);
  const staged: { path: string; blob: StagedBlob }[] = [];
  try {
    for (const file of files) staged.push({ path: file.path, blob: await ctx.blobs.stage(Readable.from([file.bytes])) });
    await ctx.blobs.exclusive(async () => {
      for (const { blob } of staged) await ctx.blobs.commit(blob);
      const stored = staged.map(({ path: filePath, blob }) => ({ path: filePath, sha256: blob.sha256, size: blob.size }));
      await writeFolderFromBlobs(ctx, stored, dir);
      const recorded = ctx.db.transaction().execute(async (trx) => {
        // Counted again with the workspace held: another upload or install may have filled it.
        await holdWorkspace(trx, caller.workspaceId);
        if (replacing) replaced = await forgetSkill(trx, replacing, 'update');
        await checkSkillRoom(trx, room, caller.workspaceId, bytes);
        await recordInstalledSkill(trx, {
          workspace_id: caller.workspaceId,
          slug,
          artifact_id: null,
          dir,
          created_at: ctx.clock.now().toISOString(),
        });
        await insertUploadedFiles(
          trx,
          stored.map((file) => ({ workspace_id: caller.workspaceId, slug, ...file })),
        );
      });
      // Refused or failed: the blobs just committed go again, unless something else uses them.
      await recorded.catch(async (error: unknown) => {
        await removeOrphans(
          ctx,
          stored.map((file) => file.sha256),
        );
        throw error;
      });
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (isUniqueViolation(error)) throw taken();
    throw error;
  } finally {
    await Promise.all(staged.map(({ blob }) => ctx.blobs.discard(blob).catch(() => undefined)));
  }
  if (replacing) await clearForgottenSkill(ctx, replacing, replaced);
  invalidate(ctx, caller.workspaceId, ['skills']);
  return { slug, name: manifest.name, description: manifest.description, runtime: manifest.runtime, files: files.length };
}
