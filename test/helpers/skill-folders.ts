import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { InstalledSkill, SkillFolderFile } from '../../src/sdk/types.js';
import { session, type TestUser } from './factories.js';
import type { Client } from './http.js';
import type { TestServer } from './server.js';

/** One file of a folder as the install request carries it: its path and its bytes in base64. */
export const folderFile = (filePath: string, content: string | Buffer): SkillFolderFile => ({
  path: filePath,
  content: Buffer.from(content).toString('base64'),
});

/** The test skill whose result is its input, as a person's own folder would hold it. */
export async function echoFolder(): Promise<SkillFolderFile[]> {
  const dir = path.join(PROJECT_ROOT, 'test', 'skills', 'echo-summary');
  return Promise.all(['SKILL.md', 'main.mjs'].map(async (name) => folderFile(name, await readFile(path.join(dir, name)))));
}

/** What the install request answers: the skill, or the error envelope. */
export type InstallReply = InstalledSkill & { error?: { code: string; message: string } };

/** Installs a folder into the person's workspace, with a chosen slug when `slug` is given. */
export const installFolder = (api: Client, person: TestUser, folderName: string, files: SkillFolderFile[], slug?: string) =>
  api.post<InstallReply>('/api/v1/skills', {
    body: { folderName, files, ...(slug === undefined ? {} : { slug }) },
    headers: session(person),
  });

/** The summary of a run's execution.result: what the echo skill was given. */
export const resultOf = (events: { type: string; payload: Record<string, unknown> }[]) =>
  events.find((event) => event.type === 'execution.result')?.payload.summary;

/** What a workspace holds of installed skills: its rows, its stored files and its folders. */
export async function storedSkillsOf(server: TestServer, person: TestUser) {
  const workspaceId = person.user.personalWorkspaceId;
  const skills = await server.db.db
    .selectFrom('workspace_skills')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .execute();
  const files = await server.db.db
    .selectFrom('uploaded_skill_files')
    .select('path')
    .where('workspace_id', '=', workspaceId)
    .execute();
  const folders = await readdir(path.join(server.config.dataDir, 'installed-skills', workspaceId)).catch(() => []);
  return { skills: skills.map((row) => row.slug).sort(), files: files.length, folders: folders.length };
}
