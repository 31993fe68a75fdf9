import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { createTeam, session, signUp } from '../helpers/factories.js';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  openSection,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp();

/** The workspace the session acts in, as the server holds it. */
async function currentWorkspace(app: AppPage): Promise<{ id: string; name: string | null }> {
  const reply = await app.page.request.get('/api/v1/app/session', { headers: { 'x-skillet-app': '1' } });
  return ((await reply.json()) as { me: { workspace: { id: string; name: string | null } } }).me.workspace;
}

async function createInApp(app: AppPage, name: string): Promise<void> {
  await app.page.getByLabel('Workspace name').fill(name);
  await app.page.getByRole('button', { name: 'Create workspace' }).click();
  await app.page.getByText(`Created “${name}”.`, { exact: false }).waitFor();
}

/** The workspace the header shows: the switcher's choice, once there are two to choose from. */
function headerWorkspace(app: AppPage): Promise<string> {
  return app.page
    .getByRole('banner')
    .getByRole('combobox', { name: 'Workspace' })
    .evaluate(
      (select) => (select as unknown as { selectedOptions: { textContent: string }[] }).selectedOptions[0]?.textContent ?? '',
    );
}

const unique = (prefix: string) => `${prefix} ${randomBytes(3).toString('hex')}`;

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('workspaces (%s)', (viewport) => {
  test('creating a team workspace and switching to it moves the session and the header; switching back', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await openSection(app, 'Workspaces');
    await app.page.getByRole('heading', { name: 'Your workspaces' }).waitFor();
    const personal = await currentWorkspace(app);
    const team = unique('Acme');

    await createInApp(app, team);
    const row = app.page.getByRole('row').filter({ hasText: team });
    await row.waitFor();
    expect(await row.innerText()).toContain('owner');
    expect((await currentWorkspace(app)).id).toBe(personal.id);

    await app.page.getByRole('button', { name: `Switch to ${team}` }).click();
    await expect.poll(() => headerWorkspace(app)).toBe(team);
    await row.getByText('Current', { exact: true }).waitFor();
    expect(await currentWorkspace(app)).toMatchObject({ name: team });
    await expectAccessible(app, 'workspaces');
    await screenshot(app, 'workspaces');

    await app.page.getByRole('button', { name: 'Switch to Personal' }).click();
    await expect.poll(() => headerWorkspace(app)).toBe('Personal');
    expect((await currentWorkspace(app)).id).toBe(personal.id);
    expectNoPageErrors(app);
  });

  test('an owner adds a member by email with a role; that person can then act in the workspace', async ({ openPage, api }) => {
    const colleague = await signUp(api);
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/workspaces');
    const team = unique('Studio');
    await createInApp(app, team);
    await app.page.getByRole('link', { name: `Members of ${team}` }).click();
    await app.page.getByRole('heading', { name: `Members of ${team}` }).waitFor();

    await app.page.getByLabel('Email').fill('nobody-here@example.test');
    await app.page.getByRole('button', { name: 'Add member' }).click();
    expect(await app.page.getByRole('alert').innerText()).toContain('No user with this email');

    await app.page.getByLabel('Email').fill(colleague.email);
    await app.page.getByLabel('Role', { exact: true }).selectOption('admin');
    await app.page.getByRole('button', { name: 'Add member' }).click();
    await app.page.getByText(`Added ${colleague.email} as admin.`).waitFor();
    // The list shows both people with their roles.
    const people = app.page.getByRole('list').filter({ hasText: colleague.email });
    await expect.poll(() => people.getByLabel(`Role of ${colleague.email}`).inputValue()).toBe('admin');
    expect(await people.getByRole('listitem').filter({ hasText: '(you)' }).innerText()).toContain('Owner');
    await expectAccessible(app, 'workspaces-members');
    await screenshot(app, 'workspaces-members');

    // The server holds the membership: the colleague may now switch into the workspace, as an admin.
    const id = new URL(app.page.url()).searchParams.get('members') as string;
    const switched = await api.put<{ workspace: { id: string; role: string } }>('/api/v1/workspaces/current', {
      body: { workspaceId: id },
      headers: session(colleague),
    });
    expect(switched.status).toBe(200);
    expect(switched.body.workspace).toMatchObject({ id, role: 'admin' });
    forgiveStatus(app, 404); // the unknown email
    expectNoPageErrors(app);
  });

  test('an owner changes a role, renames the team, switches to it from the header, and removes someone', async ({
    openPage,
    api,
  }) => {
    const colleague = await signUp(api);
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/workspaces');
    const team = unique('Guild');
    await createInApp(app, team);
    await app.page.getByRole('link', { name: `Members of ${team}` }).click();
    await app.page.getByLabel('Email').fill(colleague.email);
    await app.page.getByRole('button', { name: 'Add member' }).click();
    await app.page.getByText(`Added ${colleague.email} as member.`).waitFor();
    const id = new URL(app.page.url()).searchParams.get('members') as string;
    const roleOnServer = async () =>
      (
        await api.get<{ members: { email: string; role: string }[] }>(`/api/v1/workspaces/${id}/members`, {
          headers: session(colleague),
        })
      ).body.members.find((one) => one.email === colleague.email)?.role;

    await app.page.getByLabel(`Role of ${colleague.email}`).selectOption('admin');
    await expect.poll(roleOnServer).toBe('admin');
    await app.page.getByText('a run started in', { exact: false }).waitFor();

    const renamed = unique('Night guild');
    await app.page.getByLabel('New name').fill(renamed);
    await app.page.getByRole('button', { name: 'Rename' }).click();
    await app.page.getByText('Renamed.').waitFor();
    await app.page.getByRole('heading', { name: `Members of ${renamed}` }).waitFor();
    await expectAccessible(app, 'team-members');
    await screenshot(app, 'team-members');

    // The header switches workspaces from any screen.
    await openSection(app, 'Skills');
    await app.page.getByRole('banner').getByRole('combobox', { name: 'Workspace' }).selectOption({ label: renamed });
    await expect.poll(async () => (await currentWorkspace(app)).id).toBe(id);
    await expectAccessible(app, 'workspace-switcher');
    await screenshot(app, 'workspace-switcher');
    // Runs in the team are paid from the person's own credits, and the skill says so.
    await app.page.goto('/app/skills/ticker');
    await app.page.getByText(`from your own credits, not ${renamed}’s`).waitFor();

    await app.page.goto(`/app/workspaces?members=${id}`);
    await app.page.getByRole('button', { name: `Remove ${colleague.email}` }).click();
    await app.page.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => app.page.getByText(colleague.email).count()).toBe(0);
    const gone = await api.get(`/api/v1/workspaces/${id}/members`, { headers: session(colleague) });
    expect(gone.status).toBe(404);
    expectNoPageErrors(app);
  });

  test("another person's workspace id is not found, in the members URL and in requests, and shows none of its data", async ({
    openPage,
    api,
  }) => {
    const stranger = await signUp(api);
    const secret = await createTeam(api, stranger, unique('Secret'));
    const app = await openPage(viewport);
    await signUpInApp(app);

    await app.page.goto(`/app/workspaces?members=${secret.id}`);
    await app.page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
    expect(await app.page.content()).not.toContain(secret.name);
    expect(await app.page.getByLabel('Email').count()).toBe(0);
    await expectAccessible(app, 'workspaces-not-found');
    await screenshot(app, 'workspaces-not-found');

    const headers = { 'x-skillet-app': '1' };
    const add = await app.page.request.post(`/api/v1/workspaces/${secret.id}/members`, {
      headers,
      data: { email: 'someone@example.test', role: 'member' },
    });
    expect(add.status()).toBe(404);
    expect(await add.text()).not.toContain(secret.name);
    const list = await app.page.request.get(`/api/v1/workspaces/${secret.id}/members`, { headers });
    expect(list.status()).toBe(404);
    expect(await list.text()).not.toContain(stranger.email);
    const switched = await app.page.request.put('/api/v1/workspaces/current', { headers, data: { workspaceId: secret.id } });
    expect(switched.status()).toBe(403);
    expect(await switched.text()).not.toContain(secret.name);
    expectNoPageErrors(app);
  });
});
