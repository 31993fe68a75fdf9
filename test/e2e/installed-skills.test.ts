import { describe, expect } from 'vitest';
import { echoFolder } from '../helpers/skill-folders.js';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000' });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])("the workspace's installed skills (%s)", (viewport) => {
  test('an installed skill is on the Skills page marked Yours, has its own page, and is removed after a confirm', async ({
    openPage,
    server,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const token = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session')?.value as string;
    const installed = await fetch(`${server.url}/api/v1/skills`, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ folderName: 'my-echo', files: await echoFolder() }),
    });
    expect(installed.status).toBe(201);

    await app.page.goto('/app/skills');
    const card = app.page.getByRole('listitem').filter({ has: app.page.getByRole('heading', { name: /Echo Summary/ }) });
    await expect.poll(() => card.count()).toBe(2);
    // The server's Echo Summary and the one installed as my-echo: only the latter is Yours.
    const mine = card.filter({ hasText: 'my-echo' });
    await mine.getByText('Yours', { exact: true }).waitFor();
    expect(await card.filter({ hasText: 'echo-summary' }).getByText('Yours', { exact: true }).count()).toBe(0);
    await expectAccessible(app, 'installed-skills-list');
    await screenshot(app, 'installed-skills-list');

    await mine.getByRole('link', { name: 'Run Echo Summary' }).click();
    await app.page.waitForURL(/\/app\/skills\/my-echo$/);
    await app.page.getByRole('heading', { name: 'Echo Summary Yours' }).waitFor();
    await app.page.getByRole('button', { name: 'Remove…' }).click();
    await app.page.getByText('Remove Echo Summary from this workspace?').waitFor();
    await expectAccessible(app, 'installed-skill-remove');
    await screenshot(app, 'installed-skill-remove');

    // Keep it goes back without removing anything.
    await app.page.getByRole('button', { name: 'Keep it' }).click();
    await app.page.getByRole('button', { name: 'Remove…' }).click();
    await app.page.getByRole('button', { name: 'Remove Echo Summary' }).click();
    await app.page.waitForURL(/\/app\/skills$/);
    await expect.poll(() => card.count()).toBe(1);
    expect(await app.page.getByText('my-echo').count()).toBe(0);

    await app.page.goto('/app/skills/my-echo');
    await app.page.getByText('There is no skill “my-echo”.').waitFor();
    forgiveStatus(app, 404);
    // The server's own skills have no Remove.
    await app.page.goto('/app/skills/echo-summary');
    await app.page.getByRole('heading', { name: 'Echo Summary' }).waitFor();
    expect(await app.page.getByRole('button', { name: 'Remove…' }).count()).toBe(0);
    expectNoPageErrors(app);
  });
});
