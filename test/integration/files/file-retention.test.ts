import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { blobStoreFor } from '../../../src/artifacts/blob-store-for.js';
import { sweepExpiredFiles } from '../../../src/files/files.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type InputFile, uploadRaw } from '../../helpers/files.js';
import { withServerPerTest } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';
import { echoFolder, folderFile, installFolder } from '../../helpers/skill-folders.js';

/**
 * A file a run was given is kept ATTACHED_FILE_RETENTION_DAYS after the last run given it,
 * not for good (issue 50, item 3); the expiry sweep then deletes it, and its blob when no
 * other file shares it. A server per test: each moves the clock.
 */
const DAY_MS = 24 * 3_600_000;
const it = withServerPerTest({
  ATTACHED_FILE_RETENTION_DAYS: '10',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
}).extend('person', async ({ api }) => {
  const person = await signUp(api);
  await installReader(api, person);
  return person;
});

const sweep = (server: TestServer) =>
  sweepExpiredFiles({ db: server.db.db, blobs: blobStoreFor(server.config), config: server.config, clock: server.clock });

async function fileOf(server: TestServer, person: TestUser, id: string): Promise<{ status: number; body: InputFile }> {
  const reply = await fetch(`${server.url}/api/v1/files/${id}`, { headers: session(person) });
  return { status: reply.status, body: (await reply.json()) as InputFile };
}

function blobExists(server: TestServer, digest: string): boolean {
  if (server.config.blobs.kind !== 'folder') throw new Error('these tests look at a folder store');
  return existsSync(path.join(server.config.blobs.dir, digest.slice(0, 2), digest));
}

/** In a cluster only old blobs are collected, by age on disk: there the blob stays a while. */
const collectsAtOnce = (server: TestServer) => server.config.redisUrl === undefined;

/** The echo skill, saying it reads files (only such a skill may be given any). */
async function installReader(api: Client, person: TestUser): Promise<void> {
  const [manifest, ...rest] = await echoFolder();
  const source = Buffer.from(manifest?.content ?? '', 'base64').toString('utf8');
  const files = [folderFile('SKILL.md', source.replace(/^---\n/, '---\ninput-files: true\n')), ...rest];
  expect((await installFolder(api, person, 'reader', files, 'reader')).status).toBe(201);
}

async function giveToRun(api: Client, person: TestUser, fileId: string) {
  const created = await api.post('/api/v1/executions', {
    body: { skill_slug: 'reader', input: 'hello', files: [{ fileId }] },
    headers: session(person),
  });
  expect([created.status, created.body]).toEqual([200, expect.anything()]);
}

describe('how long a file a run was given is kept', () => {
  it('until the retention after the last run given it, then the sweep deletes it and its blob', async ({
    server,
    api,
    person,
  }) => {
    const bytes = `attached ${Math.random()}`;
    const attached = (await uploadRaw(server.url, session(person), 'attached.txt', bytes)).body;
    server.clock.advance(DAY_MS);
    await giveToRun(api, person, attached.id);
    const afterFirst = server.clock.nowMs() + 10 * DAY_MS;
    expect(Date.parse((await fileOf(server, person, attached.id)).body.expiresAt ?? '')).toBe(afterFirst);

    // A later run puts it later; an earlier expiry never comes back.
    server.clock.advance(2 * DAY_MS);
    await giveToRun(api, person, attached.id);
    const afterLast = server.clock.nowMs() + 10 * DAY_MS;
    expect(Date.parse((await fileOf(server, person, attached.id)).body.expiresAt ?? '')).toBe(afterLast);

    server.clock.advance(10 * DAY_MS - 1000);
    await sweep(server);
    expect((await fileOf(server, person, attached.id)).status).toBe(200);
    server.clock.advance(1000);
    expect(await sweep(server)).toBe(1);
    expect((await fileOf(server, person, attached.id)).status).toBe(404);
    if (collectsAtOnce(server)) expect(blobExists(server, attached.sha256)).toBe(false);
  });

  it('a blob another file shares stays when the attached file goes', async ({ server, api, person }) => {
    const bytes = `shared ${Math.random()}`;
    const attached = (await uploadRaw(server.url, session(person), 'attached.txt', bytes)).body;
    await giveToRun(api, person, attached.id);
    server.clock.advance(9 * DAY_MS);
    const twin = (await uploadRaw(server.url, session(person), 'twin.txt', bytes)).body;
    server.clock.advance(DAY_MS);
    expect(await sweep(server)).toBe(1);
    expect((await fileOf(server, person, attached.id)).status).toBe(404);
    const content = await fetch(`${server.url}/api/v1/files/${twin.id}/content`, { headers: session(person) });
    expect(await content.text()).toBe(bytes);
    expect(blobExists(server, twin.sha256)).toBe(true);
  });

  it('a file an older version kept for good gets the retention at the next sweep, and then goes', async ({ server, person }) => {
    const kept = (await uploadRaw(server.url, session(person), 'kept.txt', `kept ${Math.random()}`)).body;
    await server.db.db.updateTable('input_files').set({ expires_at: null }).where('id', '=', kept.id).execute();
    expect(await sweep(server)).toBe(0);
    expect(Date.parse((await fileOf(server, person, kept.id)).body.expiresAt ?? '')).toBe(server.clock.nowMs() + 10 * DAY_MS);
    server.clock.advance(10 * DAY_MS);
    expect(await sweep(server)).toBe(1);
    expect((await fileOf(server, person, kept.id)).status).toBe(404);
  });
});
