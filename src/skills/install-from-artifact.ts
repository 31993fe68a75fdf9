import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { readableArtifact } from '../artifacts/access.js';
import { type ArtifactView, artifactView } from '../artifacts/artifact-view.js';
import { findArtifact, updateArtifact } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { Conflict, InvalidInput } from '../errors.js';
import { checkSkillRoom, holdWorkspace } from '../files/storage-quota.js';
import type { Caller } from '../ports/callers.js';
import { skillOfMetadata, writeSkillFolder } from './installed-skill-folder.js';
import { isSlugTaken, recordInstalledSkill } from './workspace-skills.store.js';

/**
 * Installs a skill artifact into its workspace: the skill's folder is written out of the
 * blobs into a folder of its own, and the workspace can run it by its slug from then on.
 * A slug the server's own skills or another installed skill already use is a conflict.
 */
export async function installArtifact(
  ctx: Pick<AppContext, 'db' | 'blobs' | 'clock' | 'config' | 'skills'>,
  caller: Caller,
  id: string,
): Promise<ArtifactView> {
  const artifact = await readableArtifact(ctx, caller, id);
  const skill = artifact.artifact_type === 'skill' ? skillOfMetadata(artifact.metadata) : undefined;
  if (!skill) throw new InvalidInput('This artifact is not a skill');
  if (artifact.is_installed === 1) return artifactView(artifact);
  if (ctx.skills.get(skill.slug) || (await isSlugTaken(ctx.db, caller.workspaceId, skill.slug))) {
    throw new Conflict(`A skill with the slug ${skill.slug} is already installed in this workspace`);
  }
  // Counted, not sized: the skill's files are the artifact's, which a run's output limits bound.
  await checkSkillRoom(ctx.db, ctx.config.workspaceStorage, caller.workspaceId);

  const dir = path.join(
    ctx.config.dataDir,
    'installed-skills',
    caller.workspaceId,
    `${skill.slug}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await writeSkillFolder(ctx, artifact.id, skill.folder, dir);
    await ctx.db.transaction().execute(async (trx) => {
      await holdWorkspace(trx, caller.workspaceId);
      await checkSkillRoom(trx, ctx.config.workspaceStorage, caller.workspaceId);
      await recordInstalledSkill(trx, {
        workspace_id: caller.workspaceId,
        slug: skill.slug,
        artifact_id: artifact.id,
        dir,
        created_at: ctx.clock.now().toISOString(),
      });
      await updateArtifact(trx, artifact.id, { is_installed: 1, created_skill_slug: skill.slug });
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (isUniqueViolation(error))
      throw new Conflict(`A skill with the slug ${skill.slug} is already installed in this workspace`);
    throw error;
  }
  const installed = await findArtifact(ctx.db, artifact.id);
  if (!installed) throw new Conflict('The artifact was deleted while it was being installed');
  return artifactView(installed);
}
