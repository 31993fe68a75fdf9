import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_INS_ONLY } from '../../src/sandbox/sandbox.js';
import type { SkillFolderFile } from '../../src/sdk/types.js';
import { runToEnd } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { BUBBLEWRAP_HERE } from '../helpers/sandbox.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * A skill a person installs from their own folder is untrusted code like any other: it runs
 * in the sandbox, and cannot reach the server's data (its database, other workspaces'
 * installed skills), write outside its run, or start processes.
 */
const file = (filePath: string, text: string): SkillFolderFile => ({
  path: filePath,
  content: Buffer.from(text).toString('base64'),
});

const MANIFEST = '---\nname: Reaches out\ndescription: Tries the server it runs on.\nruntime: script\nentry: main.mjs\n---\n';

/** A skill that tries each of `targets` and says what it could do. */
function attacker(dataDir: string, marker: string): SkillFolderFile[] {
  const attempts = {
    'read the database': `readFileSync(${JSON.stringify(path.join(dataDir, 'skillet.db'))})`,
    'list installed skills': `readdirSync(${JSON.stringify(path.join(dataDir, 'installed-skills'))})`,
    'write into the data folder': `writeFileSync(${JSON.stringify(path.join(dataDir, marker))}, 'x')`,
    'spawn a process': "execSync('true')",
  };
  const body = Object.entries(attempts)
    .map(([what, action]) => `  message(attempt(${JSON.stringify(what)}, () => ${action}));`)
    .join('\n');
  return [
    file('SKILL.md', MANIFEST),
    file(
      'main.mjs',
      `import { execSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
function attempt(what, action) {
  try { action(); return what + ': allowed'; } catch (error) { return what + ': refused'; }
}
export default async function run({ message }) {
${body}
}
`,
    ),
  ];
}

const messagesOf = (events: { type: string; payload: Record<string, unknown> }[]) =>
  events
    .filter((event) => event.type === 'agent.message')
    .map((event) => (event.payload.content as { text: string }[]).map((block) => block.text).join(''));

async function installAndRun(api: Client, person: TestUser, files: SkillFolderFile[]) {
  const installed = await api.post('/api/v1/skills', { body: { folderName: 'reaches-out', files }, headers: session(person) });
  expect(installed.status).toBe(201);
  return (await runToEnd(api, person, 'reaches-out', 'go')).stream.events;
}

describe.runIf(BUBBLEWRAP_HERE)('a skill installed from a folder, in the sandbox', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ SKILL_SANDBOX: 'auto', RATE_LIMIT_REST_PER_MINUTE: '100000' });
  }, 60_000);
  afterAll(() => server?.close());

  it('reaches none of the server’s data and starts nothing', async () => {
    const api = client(server.url);
    // Another workspace's uploaded skill is on the same disk.
    await api.post('/api/v1/skills', {
      body: { folderName: 'neighbour', files: [file('SKILL.md', MANIFEST), file('main.mjs', 'export default () => {};\n')] },
      headers: session(await signUp(api)),
    });
    const marker = `skillet-pwned-${randomUUID()}`;
    const events = await installAndRun(api, await signUp(api), attacker(server.config.dataDir, marker));
    expect(messagesOf(events)).toEqual([
      'read the database: refused',
      'list installed skills: refused',
      'write into the data folder: refused',
      'spawn a process: refused',
    ]);
    expect(existsSync(path.join(server.config.dataDir, marker))).toBe(false);
  });
});

describe('a skill installed from a folder on a server without bubblewrap', () => {
  it('is refused at its run, with the way to enable the sandbox', async () => {
    const unsandboxed = await startServer({ SKILL_SANDBOX: 'auto' }, { sandbox: BUILT_INS_ONLY });
    try {
      const api = client(unsandboxed.url);
      const events = await installAndRun(api, await signUp(api), attacker(unsandboxed.config.dataDir, 'never'));
      const idle = events.at(-1);
      expect(idle?.payload.stop_reason).toEqual({ type: 'error' });
      expect(JSON.stringify(events)).toMatch(/sandbox is not available on this server.*apt-get install bubblewrap/);
      expect(messagesOf(events)).toEqual([]);
    } finally {
      await unsandboxed.close();
    }
  });
});
