import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000' });

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A file dropped on the zone as a browser drops one: dragover, then drop, carrying a DataTransfer. */
const DROP = `(() => {
  const transfer = new DataTransfer();
  transfer.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }));
  const zone = document.querySelector('.drop-zone');
  zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
})()`;

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('files on the run form (%s)', (viewport) => {
  test('files chosen and dropped are listed with their sizes, one removed, the rest uploaded on run and read by the run', async ({
    openPage,
    server,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const token = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session')?.value as string;
    await app.page.goto('/app/skills/reads-uploads');
    await app.page.getByRole('heading', { name: 'Reads uploads' }).waitFor();
    const run = app.page.getByRole('button', { name: 'Run', exact: true });
    expect(await run.isDisabled()).toBe(true);

    const chooser = app.page.waitForEvent('filechooser');
    await app.page.getByRole('button', { name: 'Choose files' }).click();
    await (await chooser).setFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes') },
      { name: 'données – 2024.csv', mimeType: 'text/csv', buffer: Buffer.from('x'.repeat(2048)) },
    ]);
    await app.page.evaluate(DROP);
    const listed = app.page.getByRole('list', { name: 'Files for the run' }).getByRole('listitem');
    await expect
      .poll(() => listed.allTextContents())
      .toEqual(['notes.txt10 BRemove', 'données – 2024.csv2.0 KBRemove', 'dropped.txt13 BRemove']);
    // Files alone are enough to run.
    expect(await run.isEnabled()).toBe(true);
    await expectAccessible(app, 'run-files');
    await screenshot(app, 'run-files');

    await app.page.getByRole('button', { name: 'Remove notes.txt' }).click();
    await expect.poll(() => listed.count()).toBe(2);
    await run.click();
    await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
    await app.page.getByText('Completed', { exact: true }).waitFor();
    await app.page.getByRole('region', { name: 'Result' }).getByText('2 files').waitFor();

    const headers = { 'x-auth-token': token };
    const history = (await (await fetch(`${server.url}/api/v1/executions?limit=1`, { headers })).json()) as {
      items: { inputText: string }[];
    };
    expect(history.items[0]?.inputText).toBe('See the attached files');
    const artifacts = (await (await fetch(`${server.url}/api/v1/artifacts`, { headers })).json()) as { id: string }[];
    const report = (await (await fetch(`${server.url}/api/v1/artifacts/${artifacts[0]?.id}/raw`, { headers })).json()) as {
      files: { path: string; sha256: string }[];
    };
    expect(report.files.map((file) => [file.path, file.sha256])).toEqual([
      ['données – 2024.csv', sha256('x'.repeat(2048))],
      ['dropped.txt', sha256('dropped bytes')],
    ]);
    // Only the files that were run were uploaded: the removed one never left the page.
    const files = (await (await fetch(`${server.url}/api/v1/files`, { headers })).json()) as { items: { filename: string }[] };
    expect(files.items.map((file) => file.filename).sort()).toEqual(['données – 2024.csv', 'dropped.txt']);
    expectNoPageErrors(app);
  });
});
