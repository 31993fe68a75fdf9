import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { bytesOf, runForArtifact } from '../helpers/artifacts.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  openSection,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

// `api` is the integration tests' JSON client: it makes the artifacts and checks what the server then holds.
const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

/** Signs up in the app; the person, with the app's session cookie as their token for the API. */
async function signedIn(app: AppPage, api: Client): Promise<TestUser> {
  const { email, password } = await signUpInApp(app);
  const token = (await app.page.context().cookies()).find((cookie) => cookie.name === 'skillet_session')?.value;
  if (!token) throw new Error('the app set no session cookie');
  const me = await api.get<{ user: TestUser['user'] }>('/api/v1/me', { headers: { 'x-auth-token': token } });
  return { token, email, password, user: me.body.user };
}

type File = { path: string; text: string } | { path: string; bytes: number };

/** Runs the writer skill as the person: one file makes a single-file artifact, more make a bundle. */
async function write(api: Client, person: TestUser, title: string, files: File[]): Promise<string> {
  return (await runForArtifact(api, person, 'writer', JSON.stringify({ title, files }))).artifactId;
}

async function openArtifact(app: AppPage, title: string): Promise<void> {
  await openSection(app, 'Artifacts');
  await app.page.getByRole('link', { name: new RegExp(title) }).click();
  await app.page.getByRole('heading', { level: 2, name: new RegExp(title) }).waitFor();
}

/** The message Chromium logs when a sandboxed frame refuses a script: the proof it did not run, not a fault. */
const BLOCKED_SCRIPT = /Blocked script execution in .* sandboxed and the 'allow-scripts' permission is not set/;

function dropErrors(app: AppPage, pattern: RegExp): void {
  app.errors.splice(0, app.errors.length, ...app.errors.filter((error) => !pattern.test(error)));
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('artifacts (%s)', (viewport) => {
  test('the list shows each artifact with its type, size and sharing, and opens it to its text', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    await openSection(app, 'Artifacts');
    await app.page.getByText('No artifacts yet').waitFor();
    const id = await write(api, person, 'Meeting notes', [{ path: 'notes.txt', text: 'Agenda:\n1. Budget\n2. Hiring\n' }]);
    await write(api, person, 'Site plan', [
      { path: 'index.html', text: '<h1>Plan</h1>' },
      { path: 'plan.txt', text: 'phase one' },
    ]);
    // The live channel reloads the list; the newest artifact comes first.
    const rows = app.page.locator('table.artifact-table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => rows.nth(0).innerText()).toMatch(/Site plan[\s\S]*Bundle, 2 files[\s\S]*Private/);
    await expect.poll(() => rows.nth(1).innerText()).toMatch(/Meeting notes[\s\S]*text\/plain[\s\S]*28 B[\s\S]*Private/);
    await expectAccessible(app, 'artifacts');
    await screenshot(app, 'artifacts');

    // Past one page of 20: the oldest moves to the next page.
    for (let n = 1; n <= 19; n++) await write(api, person, `Filler ${n}`, [{ path: 'filler.txt', text: `${n}` }]);
    await app.page.getByText('1–20 of 21').waitFor();
    expect(await rows.count()).toBe(20);
    await app.page.getByRole('link', { name: 'Next page' }).click();
    await app.page.getByText('21–21 of 21').waitFor();
    expect(new URL(app.page.url()).search).toBe('?offset=20');
    expect(await rows.count()).toBe(1);

    await app.page.getByRole('link', { name: /Meeting notes/ }).click();
    expect(new URL(app.page.url()).pathname).toBe(`/app/artifacts/${id}`);
    await expect.poll(() => app.page.locator('pre').innerText()).toBe('Agenda:\n1. Budget\n2. Hiring\n');
    await expectAccessible(app, 'artifact-text');
    await screenshot(app, 'artifact-text');
    expectNoPageErrors(app);
  });

  test('Download saves the very bytes the API serves, for a file and for a bundle as a ZIP', async ({
    openPage,
    api,
    server,
  }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    const single = await write(api, person, 'Random bytes', [{ path: 'noise.bin', bytes: 5000 }]);
    const bundle = await write(api, person, 'Two files', [
      { path: 'a.txt', text: 'first' },
      { path: 'b/c.bin', bytes: 300 },
    ]);
    for (const [id, title, name] of [
      [single, 'Random bytes', 'Download'],
      [bundle, 'Two files', 'Download (ZIP)'],
    ] as const) {
      await openArtifact(app, title);
      const [download] = await Promise.all([
        app.page.waitForEvent('download'),
        app.page.getByRole('link', { name, exact: true }).click(),
      ]);
      const saved = await readFile(await download.path());
      const served = await bytesOf(`${server.url}/api/v1/artifacts/${id}/download`, session(person));
      expect(served.status).toBe(200);
      expect(saved.equals(served.body), `${title}: the saved file is the served one`).toBe(true);
      expect(download.suggestedFilename()).toMatch(id === single ? /\.bin$/ : /\.zip$/);
    }
    expectNoPageErrors(app);
  });

  test('Publish shows a public link that opens without any credential; Unpublish makes it 404', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    const text = 'Shared with the world.\n';
    const id = await write(api, person, 'Press release', [{ path: 'release.txt', text }]);
    await openArtifact(app, 'Press release');
    await app.page.getByRole('button', { name: 'Publish', exact: true }).click();
    const link = app.page.getByRole('link', { name: /\/public\// });
    await link.waitFor();
    const publicUrl = (await link.getAttribute('href')) as string;
    expect(publicUrl).toContain(`/public/${id}/release.txt`);
    await app.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await app.page.getByRole('button', { name: 'Copy link' }).click();
    await app.page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await app.page.evaluate('navigator.clipboard.readText()')).toBe(publicUrl);
    expect((await api.get<{ isPublic: boolean }>(`/api/v1/artifacts/${id}`, { headers: session(person) })).body.isPublic).toBe(
      true,
    );
    await expectAccessible(app, 'artifact-published');
    await screenshot(app, 'artifact-published');

    // A stranger's browser: a fresh context with no cookie at all.
    const visitor = await openPage(viewport);
    expect(await visitor.page.context().cookies()).toEqual([]);
    const opened = await visitor.page.goto(publicUrl);
    expect(opened?.status()).toBe(200);
    expect((await opened?.body())?.toString('utf8')).toBe(text);

    // After a reload the app no longer holds the link; asking again gives the same one.
    await app.page.reload();
    await app.page.getByRole('button', { name: 'Show the public link' }).click();
    expect(await link.getAttribute('href')).toBe(publicUrl);
    await app.page.getByRole('button', { name: 'Unpublish' }).click();
    await app.page.getByRole('button', { name: 'Publish', exact: true }).waitFor();
    expect(await link.count()).toBe(0);
    expect((await fetch(publicUrl)).status).toBe(404);
    expect((await api.get<{ isPublic: boolean }>(`/api/v1/artifacts/${id}`, { headers: session(person) })).body.isPublic).toBe(
      false,
    );
    expectNoPageErrors(app);
    expectNoPageErrors(visitor);
  });

  test('Markdown and HTML render only in script-less sandboxed frames, with the renderer loaded on demand', async ({
    openPage,
    api,
  }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    // Each tries to reach the app: set a global in it, retitle it, and mark its own page as run.
    const attack = "<script>document.body.dataset.ran='yes';window.top.pwned=1;parent.document.title='pwned'</script>";
    await write(api, person, 'Readme', [{ path: 'README.md', text: `# Hello there\n\nSome *emphasis*.\n\n${attack}\n` }]);
    await write(api, person, 'Web page', [{ path: 'page.html', text: `<h1>A page</h1>${attack}` }]);
    const scripts: string[] = [];
    app.page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await openSection(app, 'Artifacts');
    await app.page.getByRole('link', { name: /Readme/ }).waitFor();
    expect(
      scripts.filter((file) => file.includes('marked')),
      'no renderer before Markdown is shown',
    ).toEqual([]);

    for (const [title, heading, screen] of [
      ['Readme', 'Hello there', 'artifact-markdown'],
      ['Web page', 'A page', 'artifact-html'],
    ] as const) {
      await openArtifact(app, title);
      const frame = app.page.locator('iframe.preview');
      await app.page.frameLocator('iframe.preview').getByRole('heading', { name: heading }).waitFor();
      expect(await frame.getAttribute('sandbox')).toBe('');
      const inside = await (await frame.elementHandle())?.contentFrame();
      expect(await inside?.evaluate('document.body.dataset.ran ?? "no"')).toBe('no');
      expect(await app.page.evaluate('window.pwned ?? "unset"')).toBe('unset');
      expect(await app.page.title()).toBe('Artifact · Skillet');
      await expectAccessible(app, screen);
      // Chromium paints an out-of-process frame only once it has been on screen.
      await frame.scrollIntoViewIfNeeded();
      await screenshot(app, screen);
    }
    expect(scripts.filter((file) => file.includes('marked')).length, 'the renderer was fetched as its own chunk').toBe(1);
    dropErrors(app, BLOCKED_SCRIPT);
    expectNoPageErrors(app);
  });

  test("a bundle's files are listed and each previews by its kind", async ({ openPage, api, server }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60"><rect width="160" height="60" rx="8" fill="#0b5cad"/></svg>';
    const id = await write(api, person, 'Bundle of kinds', [
      { path: 'index.html', text: '<link rel="stylesheet" href="css/site.css"><h1>Bundle home</h1>' },
      { path: 'css/site.css', text: 'h1 { color: rgb(11, 92, 173); }' },
      { path: 'docs/guide.md', text: '# The guide\n\nRead me.' },
      { path: 'data/values.csv', text: 'a,b\n1,2\n' },
      { path: 'logo.svg', text: svg },
    ]);
    await openArtifact(app, 'Bundle of kinds');
    const files = app.page.getByRole('region', { name: 'Files' });
    const pick = (name: string) => files.getByRole('button', { name: new RegExp(`^${name}`) });
    for (const name of ['index.html', 'docs/guide.md', 'data/values.csv', 'logo.svg']) await pick(name).waitFor();

    await pick('index.html').click();
    const frame = app.page.locator('iframe.preview');
    const home = app.page.frameLocator('iframe.preview').getByRole('heading', { name: 'Bundle home' });
    await home.waitFor();
    // Opened under a signed preview link, so the page's own style sheet loads too (no cookie goes from the frame).
    expect(await frame.getAttribute('src')).toMatch(new RegExp(`/api/v1/previews/${id}/\\d+\\.[0-9a-f]{64}/index\\.html$`));
    expect(await frame.getAttribute('sandbox')).toBe('');
    const colorOf = (element: unknown) =>
      (globalThis as unknown as { getComputedStyle(of: unknown): { color: string } }).getComputedStyle(element).color;
    await expect.poll(() => home.evaluate(colorOf)).toBe('rgb(11, 92, 173)');

    await pick('docs/guide.md').click();
    await app.page.frameLocator('iframe.preview').getByRole('heading', { name: 'The guide' }).waitFor();
    expect(await frame.getAttribute('sandbox')).toBe('');

    await pick('data/values.csv').click();
    await expect.poll(() => app.page.locator('pre').innerText()).toBe('a,b\n1,2\n');
    expect(await pick('data/values.csv').getAttribute('aria-pressed')).toBe('true');

    await pick('logo.svg').click();
    const image = app.page.getByRole('img', { name: 'Preview of logo.svg' });
    await expect.poll(() => image.evaluate((element: { naturalWidth: number }) => element.naturalWidth)).toBe(160);
    await expectAccessible(app, 'artifact-bundle');
    await screenshot(app, 'artifact-bundle');

    // One file on its own: the link saves exactly that file's bytes.
    const [download] = await Promise.all([
      app.page.waitForEvent('download'),
      app.page.getByRole('link', { name: 'Download this file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('logo.svg');
    const served = await bytesOf(`${server.url}/api/v1/artifacts/${id}/file/logo.svg`, session(person));
    expect((await readFile(await download.path())).equals(served.body)).toBe(true);
    expectNoPageErrors(app);
  });

  test('Delete asks once more, then the artifact is gone from the list and from the server', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const person = await signedIn(app, api);
    const keep = await write(api, person, 'Keep me', [{ path: 'keep.txt', text: 'kept' }]);
    const gone = await write(api, person, 'Throw away', [{ path: 'gone.txt', text: 'gone' }]);
    await openArtifact(app, 'Throw away');
    await app.page.getByRole('button', { name: 'Delete', exact: true }).click();
    // Cancelling keeps it.
    await app.page.getByRole('button', { name: 'Cancel' }).click();
    await app.page.getByRole('button', { name: 'Delete', exact: true }).click();
    await app.page.getByRole('button', { name: 'Delete for good' }).click();
    await app.page.waitForURL('**/app/artifacts');
    await app.page.getByRole('link', { name: /Keep me/ }).waitFor();
    expect(await app.page.getByRole('link', { name: /Throw away/ }).count()).toBe(0);
    expect((await api.get(`/api/v1/artifacts/${gone}`, { headers: session(person) })).status).toBe(404);
    expect((await api.get(`/api/v1/artifacts/${keep}`, { headers: session(person) })).status).toBe(200);
    expectNoPageErrors(app);
  });

  test("another person's artifact id in the URL shows not found and reveals nothing", async ({ openPage, api }) => {
    const owner = await signUp(api);
    const secret = await write(api, owner, 'Private diary', [{ path: 'diary.txt', text: 'Dear diary' }]);
    const app = await openPage(viewport);
    await signedIn(app, api);
    await app.page.goto(`/app/artifacts/${secret}`);
    await app.page.getByRole('alert').getByText('Artifact not found').waitFor();
    expect(await app.page.getByText('Dear diary').count()).toBe(0);
    expect(await app.page.getByText('Private diary').count()).toBe(0);
    expect(await app.page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await expectAccessible(app, 'artifact-not-found');
    await screenshot(app, 'artifact-not-found');
    // Still there for its owner.
    expect((await api.get(`/api/v1/artifacts/${secret}`, { headers: session(owner) })).status).toBe(200);
    // The refused lookup's 404 is the answer shown in the page, not a fault.
    dropErrors(app, /status of 404/);
    expectNoPageErrors(app);
  });
});
