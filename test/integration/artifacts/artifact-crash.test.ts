import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Artifact } from '../../../src/sdk/types.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type Client, client } from '../../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../../helpers/process.js';

let servers: ServerProcesses;
let api: Client;

beforeAll(async () => {
  servers = await serverProcesses('artifact-crash');
  api = client(servers.baseUrl);
}, 60_000);
afterAll(() => servers.cleanUp());

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every stored blob is whole: its name is the SHA-256 of its bytes, and no temporary file is left. */
async function expectOnlyWholeBlobs() {
  const blobs = path.join(servers.dataDir, 'blobs');
  expect(await filesUnder(path.join(blobs, 'tmp'))).toEqual([]);
  for (const file of await filesUnder(blobs)) expect(await sha256Of(file), file).toBe(path.basename(file));
}

async function waitUntil(condition: () => Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const artifactsOf = async (user: TestUser) => (await api.get<Artifact[]>('/api/v1/artifacts', { headers: session(user) })).body;

describe('a server killed with SIGKILL while a run writes its files', () => {
  it('comes back with no half-written blob and the artifact failed, not completed', async () => {
    const first = await servers.start();
    const owner = await signUp(api);
    const created = await createExecution(api, owner, 'slow-writer', 'go');
    const stream = await streamOf(api, owner, created.id);
    await sendMessage(api, owner, created.id, 'go');
    // Kill once the large file is a few megabytes in.
    await waitUntil(async () => {
      const scratch = await filesUnder(path.join(servers.dataDir, 'scratch'));
      const big = scratch.find((file) => file.endsWith('big.bin'));
      return big !== undefined && (await stat(big)).size >= 3 * 1024 * 1024;
    }, 'big.bin is 3 MB long');
    first.kill('SIGKILL');
    await once(first, 'exit');
    await stream.ended;
    const scratch = path.join(servers.dataDir, 'scratch');
    const leftFolders = await readdir(scratch);

    const second = await servers.start();
    const [artifact] = await artifactsOf(owner);
    expect(artifact).toMatchObject({ status: 'failed', skillSlug: 'slow-writer', fileList: [] });
    const download = await api.get(`/api/v1/artifacts/${artifact?.id}/download`, { headers: session(owner) });
    expect(download.status).toBe(409);
    await expectOnlyWholeBlobs();
    // Nothing the killed server left; the new one's warm sandboxes may be there already.
    const folders = await readdir(scratch).catch(() => []);
    expect(folders.filter((name) => leftFolders.includes(name))).toEqual([]);
    second.kill('SIGTERM');
    await once(second, 'exit');
  });

  it('a kill while finished files are being stored leaves whole blobs and an artifact either completed or failed', async () => {
    const first = await servers.start();
    const owner = await signUp(api);
    const files = Array.from({ length: 8 }, (_, i) => ({ path: `chunk-${i}.bin`, bytes: 3 * 1024 * 1024 }));
    const input = JSON.stringify({ files });
    const created = await createExecution(api, owner, 'writer', input);
    await sendMessage(api, owner, created.id, input);
    // Kill as soon as the server starts copying the files into the blob store.
    await waitUntil(async () => (await filesUnder(path.join(servers.dataDir, 'blobs', 'tmp'))).length > 0, 'a blob is staging');
    first.kill('SIGKILL');
    await once(first, 'exit');

    const second = await servers.start();
    await expectOnlyWholeBlobs();
    const [artifact] = await artifactsOf(owner);
    expect(['completed', 'failed']).toContain(artifact?.status);
    if (artifact?.status === 'completed') expect(artifact.fileList).toHaveLength(8);
    else expect(artifact?.fileList).toEqual([]);
    second.kill('SIGTERM');
    await once(second, 'exit');
  });
});
