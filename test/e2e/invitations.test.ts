import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect } from 'vitest';
import { startFakeSmtp } from '../fakes/smtp.js';
import { signUp, uniqueEmail } from '../helpers/factories.js';
import {
  type AppPage,
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

const smtp = await startFakeSmtp();
afterAll(() => smtp.close());

const test = withBrowserApp({ SMTP_URL: smtp.url });

/** The address and fragment of the newest invitation link mailed to `email`, once `count` mails have come. */
async function linkMailedTo(email: string, count = 1): Promise<string> {
  await expect.poll(() => smtp.mails.filter((mail) => mail.to.includes(email)).length).toBe(count);
  const raw = smtp.mails.filter((mail) => mail.to.includes(email)).at(-1)?.raw ?? '';
  const link = /https?:\/\/\S+\/app\/invitation#token=sklt_invite_[0-9A-Za-z]{40}/.exec(
    raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
  )?.[0];
  expect(link, raw).toBeDefined();
  const url = new URL(link as string);
  return `${url.pathname}${url.hash}`;
}

/** An owner, signed up in the app, on the member list of a new team. */
async function ownerOfNewTeam(app: AppPage): Promise<string> {
  await signUpInApp(app);
  await app.page.goto('/app/workspaces');
  const team = `Harbour ${randomBytes(3).toString('hex')}`;
  await app.page.getByLabel('Workspace name').fill(team);
  await app.page.getByRole('button', { name: 'Create workspace' }).click();
  await app.page.getByRole('link', { name: `Members of ${team}` }).click();
  await app.page.getByRole('heading', { name: `Members of ${team}` }).waitFor();
  return team;
}

async function inviteInApp(app: AppPage, email: string, role: string): Promise<void> {
  await app.page.getByLabel('Email').fill(email);
  await app.page.getByLabel('Role', { exact: true }).selectOption(role);
  await app.page.getByRole('button', { name: 'Send invitation' }).click();
  await app.page.getByText(`Invitation sent to ${email} as ${role}.`).waitFor();
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('team invitations by email (%s)', (viewport) => {
  test('an owner invites an address; the mail arrives; the invitee creates an account from the link and joins, once', async ({
    openPage,
  }) => {
    const owner = await openPage(viewport);
    const team = await ownerOfNewTeam(owner);
    const email = uniqueEmail('newcomer');
    await inviteInApp(owner, email, 'admin');
    const waiting = owner.page.getByRole('listitem').filter({ hasText: email });
    await waiting.getByText('The link works until', { exact: false }).waitFor();
    await expectAccessible(owner, 'invitations');
    await screenshot(owner, 'invitations');

    const link = await linkMailedTo(email);
    const invitee = await openPage(viewport);
    await invitee.page.goto(link);
    await invitee.page.getByRole('heading', { name: `Join ${team}` }).waitFor();
    // The token is taken out of the address bar as soon as the page has read it.
    expect(new URL(invitee.page.url()).hash).toBe('');
    await expectAccessible(invitee, 'invitation');
    await screenshot(invitee, 'invitation');
    await invitee.page.getByLabel('Choose a password').fill('joined by a link');
    await invitee.page.getByRole('button', { name: 'Create account and join' }).click();
    await invitee.page.getByRole('heading', { name: `Members of ${team}` }).waitFor();
    const you = invitee.page.getByRole('listitem').filter({ hasText: `${email} (you)` });
    expect(await you.innerText()).toContain('Admin');

    // The owner's list: the invitation is gone, the person is in.
    await owner.page.reload();
    await owner.page.getByText('None. People you invite show here until they join.').waitFor();
    await owner.page.getByLabel(`Role of ${email}`).waitFor();

    const again = await openPage(viewport);
    await again.page.goto(link);
    await again.page.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor();
    await again.page.getByText('This invitation has been used already.', { exact: false }).waitFor();
    await expectAccessible(again, 'invitation-used');
    await screenshot(again, 'invitation-used');
    forgiveStatus(again, 410);
    for (const page of [owner, invitee, again]) expectNoPageErrors(page);
  });

  test('an owner resends and then revokes an invitation; the revoked link says so in words', async ({ openPage }) => {
    const owner = await openPage(viewport);
    await ownerOfNewTeam(owner);
    const email = uniqueEmail('maybe');
    await inviteInApp(owner, email, 'member');
    const first = await linkMailedTo(email);

    await owner.page.getByRole('button', { name: `Resend to ${email}` }).click();
    await owner.page.getByText(`A new link is on its way to ${email}; the old one no longer works.`).waitFor();
    const second = await linkMailedTo(email, 2);
    expect(second).not.toBe(first);

    await owner.page.getByRole('button', { name: `Revoke the invitation of ${email}` }).click();
    await owner.page.getByRole('button', { name: 'Yes, revoke' }).click();
    await owner.page.getByText('None. People you invite show here until they join.').waitFor();

    const invitee = await openPage(viewport);
    await invitee.page.goto(second);
    await invitee.page.getByRole('heading', { name: 'This invitation cannot be used' }).waitFor();
    await invitee.page
      .getByText('This invitation was withdrawn by the workspace. Ask whoever invited you to send a new invitation.')
      .waitFor();
    await expectAccessible(invitee, 'invitation-revoked');
    await screenshot(invitee, 'invitation-revoked');
    forgiveStatus(invitee, 410);
    expectNoPageErrors(owner);
    expectNoPageErrors(invitee);
  });
  // Last of each width: it moves the server's clock a week on.
  test('someone signed in as another account is told so, signs in as the invited address and joins; a week-old link has expired', async ({
    openPage,
    api,
    server,
  }) => {
    const owner = await openPage(viewport);
    const team = await ownerOfNewTeam(owner);
    const colleague = await signUp(api);
    await inviteInApp(owner, colleague.email, 'member');
    const link = await linkMailedTo(colleague.email);

    const shared = await openPage(viewport);
    const someoneElse = await signUpInApp(shared);
    await shared.page.goto(link);
    await shared.page
      .getByText(`You are signed in as ${someoneElse.email}, but this invitation is for ${colleague.email}.`, { exact: false })
      .waitFor();
    await expectAccessible(shared, 'invitation-other-account');
    await screenshot(shared, 'invitation-other-account');
    await shared.page.getByRole('button', { name: 'Sign out' }).click();
    await shared.page.getByRole('button', { name: 'Sign in instead' }).click();
    await shared.page.getByLabel('Password', { exact: true }).fill(colleague.password);
    await shared.page.getByRole('button', { name: 'Sign in and join' }).click();
    await shared.page.getByRole('heading', { name: `Members of ${team}` }).waitFor();
    await shared.page
      .getByRole('listitem')
      .filter({ hasText: `${colleague.email} (you)` })
      .waitFor();

    const late = uniqueEmail('late');
    await inviteInApp(owner, late, 'member');
    const lateLink = await linkMailedTo(late);
    server.clock.advance(7 * 24 * 60 * 60 * 1000);
    const invitee = await openPage(viewport);
    await invitee.page.goto(lateLink);
    await invitee.page.getByText('This invitation has expired. Ask whoever invited you to send a new invitation.').waitFor();
    await expectAccessible(invitee, 'invitation-expired');
    await screenshot(invitee, 'invitation-expired');
    forgiveStatus(invitee, 410);
    for (const page of [owner, shared, invitee]) expectNoPageErrors(page);
  });
});
