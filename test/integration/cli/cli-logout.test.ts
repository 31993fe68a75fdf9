import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { withCliServer } from '../../helpers/cli.js';

const it = withCliServer();

// Compiling the project takes longer than a test may: naming `build` here sets it up ahead.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
it.beforeAll(({ build }) => {}, 120_000);

const meWith = (url: string, apiKey: string) => fetch(`${url}/api/v1/me`, { headers: { 'x-api-key': apiKey } });

describe('skillet login', () => {
  it('names the account by its email and the mode in plain words', async ({ signIn, person }) => {
    const login = await signIn();
    expect(login?.stderr()).toContain(`Signed in as ${person.email} (pay as you go)`);
  }, 30_000);

  it('whoami says the mode in the same words', async ({ cli, signIn, person }) => {
    await signIn();
    const whoami = cli(['whoami']);
    expect(await whoami.exited).toBe(0);
    expect(whoami.stdout()).toBe(`${person.email} in personal workspace (owner), pay as you go\n`);
  }, 30_000);
});

describe('skillet logout', () => {
  it('revokes the key on the server with the key itself (no password), then forgets it here', async ({
    server,
    cli,
    signIn,
    storedKey,
    person,
  }) => {
    await signIn();
    const key = (await storedKey()) as string;
    expect((await meWith(server.url, key)).status).toBe(200);
    const logout = cli(['logout']);
    expect(await logout.exited).toBe(0);
    expect(logout.stderr()).toContain('is revoked on');
    expect((await meWith(server.url, key)).status).toBe(401);
    expect(await storedKey()).toBeUndefined();
    // Only that key: the person's own session still works.
    expect((await fetch(`${server.url}/api/v1/me`, { headers: { 'x-auth-token': person.token } })).status).toBe(200);
    const again = cli(['logout']);
    expect(await again.exited).toBe(0);
    expect(again.stderr()).toContain('Not signed in.');
  }, 30_000);

  it('--json says what happened, ending with a newline', async ({ server, cli, signIn, storedKey }) => {
    await signIn();
    const key = (await storedKey()) as string;
    const logout = cli(['logout', '--json']);
    expect(await logout.exited).toBe(0);
    expect(JSON.parse(logout.stdout())).toMatchObject({ signedOut: true, revoked: true });
    expect(logout.stdout().endsWith('\n')).toBe(true);
    expect((await meWith(server.url, key)).status).toBe(401);
  }, 30_000);

  it('offline, it still forgets the key here and says the server copy could not be revoked', async ({
    server,
    cli,
    configDir,
    signIn,
    storedKey,
  }) => {
    await signIn();
    const key = (await storedKey()) as string;
    const file = path.join(configDir, 'credentials.json');
    const stored = JSON.parse(await readFile(file, 'utf8')) as { baseUrl: string };
    // The key's server is the one it was stored with: here, one that does not answer.
    await writeFile(file, JSON.stringify({ ...stored, baseUrl: 'http://127.0.0.1:9' }));
    const logout = cli(['logout']);
    expect(await logout.exited).toBe(0);
    expect(logout.stderr()).toContain('could not be revoked on the server (could not reach http://127.0.0.1:9)');
    expect(await storedKey()).toBeUndefined();
    expect((await meWith(server.url, key)).status).toBe(200);
  }, 30_000);
});
