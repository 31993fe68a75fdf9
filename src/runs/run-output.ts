import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { HEADING_SCAN_BYTES, headingOf, titleOf } from '../artifacts/artifact-titles.js';
import { deleteArtifact, insertArtifact, insertFiles, updateArtifact } from '../artifacts/artifacts.store.js';
import { type BundleFile, mainFileOf, manifestOf, mimeTypeOf } from '../artifacts/bundle.js';
import { openRegularFile, type ScratchFile, scratchFiles, sizeOf } from '../artifacts/scratch-files.js';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import type { StagedBlob } from '../ports/blob-store.js';
import type { BoundedFolder } from '../ports/sandbox.js';
import { checkOutputBytes, checkOutputEntries } from '../sandbox/output-limits.js';
import { openBoundedFolder, outputSpace } from '../sandbox/run-space.js';
import { SkillRefused } from '../sandbox/types.js';
import { ManifestError, parseSkillManifest } from '../skills/manifest.js';

interface RunOutputTarget {
  executionId: string;
  workspaceId: string;
  skillSlug: string;
  skillName: string;
  /** The text the run works on. */
  input: string;
  /** Whose the run is: its artifact is theirs. */
  payer: () => Promise<{ userId: string }>;
  /** A folder of the scratch folder that is not output (a script's ./uploads/): never part of the artifact. */
  notOutput?: string | undefined;
}

/** Where the skill in a bundle lives, when the bundle holds exactly one valid script skill. */
export interface SkillInBundle {
  slug: string;
  name: string;
  description: string;
  /** Its folder inside the bundle ('' for the top). */
  folder: string;
}

async function skillInBundle(files: ScratchFile[]): Promise<SkillInBundle | undefined> {
  const manifests = files.filter((file) => file.path === 'SKILL.md' || file.path.endsWith('/SKILL.md'));
  if (manifests.length !== 1 || !manifests[0]) return undefined;
  const folder = path.posix.dirname(manifests[0].path) === '.' ? '' : path.posix.dirname(manifests[0].path);
  const handle = await openRegularFile(manifests[0].absolute);
  try {
    const source = await handle.readFile({ encoding: 'utf8' });
    const manifest = parseSkillManifest(source, path.posix.basename(folder) || 'skill');
    const entry = manifest.entry && (folder ? `${folder}/${manifest.entry}` : manifest.entry);
    // A script skill is only whole with its entry; an agent skill's SKILL.md is enough.
    if (manifest.runtime === 'script' && !files.some((file) => file.path === entry)) return undefined;
    return { slug: manifest.slug, name: manifest.name, description: manifest.description, folder };
  } catch (error) {
    if (error instanceof ManifestError) return undefined;
    throw error;
  } finally {
    await handle.close();
  }
}

/** What a run's output uses: its files go to the blob store, its row to the database. */
type OutputDeps = Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'sandbox' | 'clearings'>;

/**
 * The files one run writes, on their way to becoming its artifact. The skill writes into a
 * scratch folder of its own; the artifact row appears (pending) with the first file it
 * reports, and the files are stored as blobs when the run completes. A run that does not
 * complete leaves a failed artifact and no files.
 */
export class RunOutput {
  #scratchDir: string;
  readonly #ctx: OutputDeps;
  readonly #target: RunOutputTarget;
  readonly #startedAt: number;
  #artifactId: Promise<string> | undefined;
  #folder: BoundedFolder | undefined;

  constructor(ctx: OutputDeps, target: RunOutputTarget) {
    this.#ctx = ctx;
    this.#target = target;
    this.#scratchDir = path.join(ctx.config.dataDir, 'scratch', randomUUID());
    this.#startedAt = ctx.clock.nowMs();
  }

  /** The folder the run writes its files into. */
  get scratchDir(): string {
    return this.#scratchDir;
  }

  /**
   * Makes the scratch folder, bounded by the output limits where this server can mount, so
   * that the kernel holds what the run writes there (deleted files still open included).
   * A warm computer's run adopts instead the output folder its sandbox already shows, made
   * the same way (computer-pool.ts).
   */
  async open(adopted?: BoundedFolder): Promise<void> {
    if (adopted) {
      this.#folder = adopted;
      this.#scratchDir = adopted.dir;
      return;
    }
    const { outputLimitBytes, outputFileLimit } = this.#ctx.config.executions;
    const space = outputSpace({ outputBytes: outputLimitBytes, outputFiles: outputFileLimit });
    try {
      this.#folder = await openBoundedFolder(this.#ctx.sandbox.boundedSpace, this.scratchDir, space);
    } catch (error) {
      throw new SkillRefused(`this server could not set up the run's output folder (${(error as Error).message}); try again`);
    }
  }

  /** Unmounts the scratch folder, if it was mounted, and removes it. */
  async #removeScratch(): Promise<void> {
    if (this.#folder) await this.#folder.release();
    else await rm(this.scratchDir, { recursive: true, force: true });
  }

  /** The run wrote a file: from now on its artifact exists, pending. */
  noteFileWritten(): Promise<string> {
    this.#artifactId ??= this.#createPending();
    return this.#artifactId;
  }

  async #createPending(): Promise<string> {
    const { executionId, workspaceId, skillSlug, skillName, input } = this.#target;
    const { userId } = await this.#target.payer();
    const id = randomUUID();
    await insertArtifact(this.#ctx.db, {
      id,
      workspace_id: workspaceId,
      user_id: userId,
      execution_id: executionId,
      skill_slug: skillSlug,
      skill_name: skillName,
      title: titleOf(input, skillName),
      file_type: 'application/octet-stream',
      artifact_type: 'output',
      input_text: input,
      content_size: 0,
      created_skill_slug: null,
      metadata: null,
      is_installed: 0,
      bundle_type: null,
      status: 'pending',
      cost: 0,
      execution_time_ms: 0,
      created_at: this.#ctx.clock.now().toISOString(),
      is_public: 0,
      manifest: null,
      main_path: null,
    });
    return id;
  }

  /**
   * Stores the files as the run's artifact, completed, and returns its id (none when the
   * run wrote nothing). Throws when they cannot be stored.
   */
  async complete(cost: number): Promise<string | undefined> {
    try {
      const { files, entries } = await scratchFiles(this.scratchDir, this.#target.notOutput);
      // Counted before anything is read, so an output over its file limit costs one listing.
      checkOutputEntries(entries, this.#ctx.config.executions);
      if (files.length === 0) {
        if (this.#artifactId) await deleteArtifact(this.#ctx.db, await this.#artifactId);
        return undefined;
      }
      const id = await this.noteFileWritten();
      const skill = await skillInBundle(files);
      const staged = await this.#stage(files);
      try {
        // A transaction cut off with its connection wrote nothing, and committing a blob again is harmless.
        await retryOnConnectionLoss(() => this.#store(id, staged, skill, cost));
        return id;
      } catch (error) {
        await Promise.all(staged.map(({ blob }) => this.#ctx.blobs.discard(blob)));
        throw error;
      }
    } finally {
      // Its files are staged by now (or the run fails), so the run's end need not wait for the unmount.
      this.#ctx.clearings.start("a run's output folder", () => this.#removeScratch());
    }
  }

  /** The run did not complete: its artifact, if it has one, is failed and keeps no files. */
  async fail(): Promise<void> {
    await this.#removeScratch();
    if (this.#artifactId) {
      const id = await this.#artifactId.catch(() => undefined);
      const failed = { status: 'failed', execution_time_ms: this.#elapsed() } as const;
      // Setting fixed values is safe to repeat after a lost connection.
      if (id) await retryOnConnectionLoss(() => updateArtifact(this.#ctx.db, id, failed));
    }
  }

  #elapsed(): number {
    return Math.max(0, this.#ctx.clock.nowMs() - this.#startedAt);
  }

  async #stage(files: ScratchFile[]): Promise<{ file: BundleFile; blob: StagedBlob }[]> {
    const staged: { file: BundleFile; blob: StagedBlob }[] = [];
    const limits = this.#ctx.config.executions;
    try {
      // Sizes first, so an output over its byte limit is refused before its bytes are read.
      checkOutputBytes(await sizeOf(files), limits);
      let bytes = 0;
      for (const scratch of files) {
        const handle = await openRegularFile(scratch.absolute);
        const blob = await this.#ctx.blobs.stage(createReadStream('', { fd: handle }));
        bytes += blob.size;
        // A file that grew after its size was read (a process of the run still alive) counts as stored.
        checkOutputBytes(bytes, limits);
        staged.push({
          blob,
          file: {
            path: scratch.path,
            sha256: blob.sha256,
            crc32: blob.crc32,
            size: blob.size,
            mimeType: mimeTypeOf(scratch.path),
          },
        });
      }
    } catch (error) {
      await Promise.all(staged.map(({ blob }) => this.#ctx.blobs.discard(blob)));
      throw error;
    }
    return staged;
  }

  /** The heading of the main file, read from the start of its stored copy (HTML and Markdown only). */
  async #headingOf(main: BundleFile): Promise<string | undefined> {
    if (main.mimeType !== 'text/html' && main.mimeType !== 'text/markdown') return undefined;
    const chunks: Buffer[] = [];
    let read = 0;
    const stream = this.#ctx.blobs.read(main.sha256);
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        read += chunk.length;
        if (read >= HEADING_SCAN_BYTES) break;
      }
    } finally {
      stream.destroy();
    }
    return headingOf(main.mimeType, Buffer.concat(chunks).subarray(0, HEADING_SCAN_BYTES).toString('utf8'));
  }

  async #store(id: string, staged: { file: BundleFile; blob: StagedBlob }[], skill: SkillInBundle | undefined, cost: number) {
    const files = staged.map(({ file }) => file);
    const single = files.length === 1 ? files[0] : undefined;
    const main = single ?? mainFileOf(files);
    const createdAt = this.#ctx.clock.now().toISOString();
    const metadata = single ? null : { fileCount: files.length, ...(skill ? { skill } : {}) };
    await this.#ctx.blobs.exclusive(async () => {
      for (const { blob } of staged) await this.#ctx.blobs.commit(blob);
      const heading = main ? await this.#headingOf(main) : undefined;
      await this.#ctx.db.transaction().execute(async (trx) => {
        await insertFiles(
          trx,
          files.map((file) => ({
            artifact_id: id,
            path: file.path,
            sha256: file.sha256,
            crc32: file.crc32,
            size: file.size,
            mime_type: file.mimeType,
          })),
        );
        await updateArtifact(trx, id, {
          status: 'completed',
          artifact_type: skill ? 'skill' : 'output',
          bundle_type: single ? null : 'directory',
          file_type: single ? single.mimeType : 'application/zip',
          content_size: files.reduce((total, file) => total + file.size, 0),
          metadata: metadata ? JSON.stringify(metadata) : null,
          manifest: single ? null : JSON.stringify(manifestOf(files, createdAt)),
          main_path: main?.path ?? null,
          title: titleOf(this.#target.input, this.#target.skillName, heading),
          cost,
          execution_time_ms: this.#elapsed(),
        });
      });
    });
  }
}
