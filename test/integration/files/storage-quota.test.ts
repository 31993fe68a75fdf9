import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type InputFile, uploadForm, uploadRaw } from '../../helpers/files.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';
import { echoFolder, folderFile, installFolder, storedSkillsOf } from '../../helpers/skill-folders.js';

/**
 * What one workspace may keep (issue 50, item 3): files by count, files and skill folders by
 * bytes together, installed skills by count. Small limits, each test in a new workspace.
 */
const BYTES = 2000;
const it = withServer({
  WORKSPACE_STORAGE_LIMIT_BYTES: String(BYTES),
  WORKSPACE_FILE_LIMIT: '3',
  WORKSPACE_SKILL_LIMIT: '2',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
}).extend('person', ({ api }) => signUp(api));

const refused = (status: number, code: string) => ({ status, body: { error: { code, message: expect.any(String) } } });

async function filesOf(server: TestServer, person: TestUser): Promise<InputFile[]> {
  const reply = await fetch(`${server.url}/api/v1/files?limit=100`, { headers: session(person) });
  return ((await reply.json()) as { items: InputFile[] }).items;
}

async function temporaryFiles(server: TestServer): Promise<string[]> {
  if (server.config.blobs.kind !== 'folder') return [];
  return readdir(path.join(server.config.blobs.dir, 'tmp')).catch(() => []);
}

const bytesOf = (size: number) => randomBytes(size);

async function giveToRun(api: Client, person: TestUser, fileId: string) {
  const created = await api.post('/api/v1/executions', {
    body: { skill_slug: 'reads-uploads', input: 'hello', files: [{ fileId }] },
    headers: session(person),
  });
  expect(created.status).toBe(200);
}

describe('what a workspace may keep of uploaded files', () => {
  it('refuses a file past the count with 409 in words, stores nothing, and takes one again once a file is deleted', async ({
    server,
    api,
    person,
  }) => {
    const stored: InputFile[] = [];
    for (const name of ['a.txt', 'b.txt', 'c.txt']) stored.push((await uploadRaw(server.url, session(person), name, name)).body);
    // A file a run was given still counts.
    await giveToRun(api, person, stored[0]?.id ?? '');

    const over = await uploadRaw(server.url, session(person), 'd.txt', 'd');
    expect(over).toMatchObject(refused(409, 'CONFLICT'));
    const message = (over.body as unknown as { error: { message: string } }).error.message;
    expect(message).toContain('keeps 3 of the 3 files');
    expect(message).toContain('Delete files you no longer need');
    expect((await filesOf(server, person)).map((file) => file.filename).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(await temporaryFiles(server)).toEqual([]);

    const removed = await fetch(`${server.url}/api/v1/files/${stored[1]?.id}`, { method: 'DELETE', headers: session(person) });
    expect(removed.status).toBe(200);
    expect((await uploadRaw(server.url, session(person), 'd.txt', 'd')).status).toBe(201);
  });

  it('refuses bytes past the workspace limit with 413, whether the length is declared or not, and stores nothing', async ({
    server,
    person,
  }) => {
    expect((await uploadRaw(server.url, session(person), 'big.bin', bytesOf(1500))).status).toBe(201);
    // A declared length past what is left: refused before the body is read.
    const declared = await uploadRaw(server.url, session(person), 'more.bin', bytesOf(501));
    expect(declared).toMatchObject(refused(413, 'PAYLOAD_TOO_LARGE'));
    expect((declared.body as unknown as { error: { message: string } }).error.message).toMatch(
      /1\.5 KiB \(1500 bytes\) of the 2\.0 KiB \(2000 bytes\).*this file takes 501 bytes, so nothing was stored\. Delete files/,
    );
    // A form has no length of its own: the body is cut where it passes what is left.
    const streamed = await uploadForm(server.url, session(person), 'more.bin', bytesOf(501));
    expect(streamed).toMatchObject(refused(413, 'PAYLOAD_TOO_LARGE'));
    expect((streamed.body as unknown as { error: { message: string } }).error.message).toContain(
      'larger than the 500 bytes left',
    );
    expect((await filesOf(server, person)).map((file) => file.size)).toEqual([1500]);
    expect(await temporaryFiles(server)).toEqual([]);
    // Exactly what is left fits.
    expect((await uploadForm(server.url, session(person), 'rest.bin', bytesOf(500))).status).toBe(201);
  });

  it('of two uploads at once that fit only one at a time, exactly one is stored, round after round', async ({ server, api }) => {
    for (let round = 0; round < 12; round++) {
      const person = await signUp(api);
      const both = await Promise.all([
        uploadRaw(server.url, session(person), 'one.bin', bytesOf(1200)),
        uploadForm(server.url, session(person), 'two.bin', bytesOf(1200)),
      ]);
      expect(both.map((reply) => reply.status).sort()).toEqual([201, 413]);
      expect(await filesOf(server, person)).toHaveLength(1);

      // The count too: two files already kept, two more arrive at once, one slot is left.
      const counted = await signUp(api);
      for (const name of ['x', 'y']) await uploadRaw(server.url, session(counted), name, name);
      const last = await Promise.all([
        uploadRaw(server.url, session(counted), 'z1', 'z1'),
        uploadForm(server.url, session(counted), 'z2', 'z2'),
      ]);
      expect(last.map((reply) => reply.status).sort()).toEqual([201, 409]);
      expect(await filesOf(server, counted)).toHaveLength(3);
    }
  });
});

describe('installed skills count toward what a workspace keeps', () => {
  it("a folder's bytes share the limit with files: past it, 413 and nothing installed", async ({ server, api, person }) => {
    expect((await uploadRaw(server.url, session(person), 'data.bin', bytesOf(1500))).status).toBe(201);
    const heavy = [...(await echoFolder()), folderFile('assets/big.bin', bytesOf(200))];
    const refusedInstall = await installFolder(api, person, 'heavy', heavy);
    expect(refusedInstall.status).toBe(413);
    expect(refusedInstall.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(refusedInstall.body.error?.message).toContain("this skill's folder takes");
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });

    // The echo skill (354 bytes) fits, and then leaves no room for a file it would pass.
    expect((await installFolder(api, person, 'light', await echoFolder())).status).toBe(201);
    const file = await uploadRaw(server.url, session(person), 'more.bin', bytesOf(200));
    expect(file).toMatchObject(refused(413, 'PAYLOAD_TOO_LARGE'));
  });

  it('past the skill count, 409 in words and nothing installed', async ({ server, api, person }) => {
    expect((await installFolder(api, person, 'one', await echoFolder(), 'one')).status).toBe(201);
    expect((await installFolder(api, person, 'two', await echoFolder(), 'two')).status).toBe(201);
    const third = await installFolder(api, person, 'three', await echoFolder(), 'three');
    expect(third.status).toBe(409);
    expect(third.body.error).toEqual({ code: 'CONFLICT', message: expect.stringContaining('has 2 installed skills') });
    expect(await storedSkillsOf(server, person)).toMatchObject({ skills: ['one', 'two'], files: 4 });
  });

  it('of two installs at once that fit only one, exactly one is installed', async ({ server, api }) => {
    for (let round = 0; round < 6; round++) {
      const person = await signUp(api);
      expect((await installFolder(api, person, 'first', await echoFolder(), 'first')).status).toBe(201);
      const both = await Promise.all(['a', 'b'].map(async (slug) => installFolder(api, person, slug, await echoFolder(), slug)));
      expect(both.map((reply) => reply.status).sort()).toEqual([201, 409]);
      expect((await storedSkillsOf(server, person)).skills).toHaveLength(2);
    }
  });
});
