import { describe, expect, onTestFinished, vi } from 'vitest';
import { createTeam, session, signUp } from '../helpers/factories.js';
import { answerWith, type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
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

// Receivers listen on 127.0.0.1, so private addresses are allowed here. The clock starts
// at the real time because the receiver checks signature timestamps against its own; it
// then stands still, and a retry an hour off never comes, so a failed first attempt stays
// pending until the test redelivers it.
const test = withBrowserApp(
  { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '3600' },
  { clockStart: new Date() },
);

async function receiverFor(status = 204): Promise<Receiver> {
  const receiver = await startReceiver(answerWith(status));
  onTestFinished(() => receiver.close());
  return receiver;
}

/** The field holding a secret shown once (its section is named "Signing secret for …" too). */
const secretField = (app: AppPage) => app.page.getByRole('textbox', { name: 'Signing secret', exact: true });

/** Adds an endpoint through the form and reads its secret from the one place it shows. */
async function addEndpoint(app: AppPage, url: string, description = ''): Promise<string> {
  await app.page.getByLabel('Endpoint URL').fill(url);
  if (description) await app.page.getByLabel('Description (optional)').fill(description);
  await app.page.getByRole('button', { name: 'Add endpoint' }).click();
  await app.page.getByRole('heading', { name: `Signing secret for ${url}` }).waitFor();
  return secretField(app).inputValue();
}

async function signUpAtWebhooks(app: AppPage): Promise<void> {
  await signUpInApp(app);
  await openSection(app, 'Webhooks');
  await app.page.getByText('No endpoints yet.', { exact: false }).waitFor();
}

/** The card of the endpoint with this URL. */
const card = (app: AppPage, url: string) => app.page.getByRole('listitem').filter({ hasText: url });

/** Sends a test event from the endpoint's card and waits for the receiver to have `count` requests. */
async function sendTest(app: AppPage, receiver: Receiver, count: number): Promise<void> {
  await card(app, receiver.url).getByRole('button', { name: 'Send test event' }).click();
  await app.page.getByText('Sent a webhook.test event', { exact: false }).waitFor();
  await vi.waitFor(() => expect(receiver.received).toHaveLength(count));
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('webhooks (%s)', (viewport) => {
  test('a new endpoint shows its secret once; a test event signed with it verifies and is logged with its attempt', async ({
    openPage,
  }) => {
    const receiver = await receiverFor();
    const app = await openPage(viewport);
    await signUpAtWebhooks(app);
    await app.page.getByRole('checkbox', { name: /credits\.granted/ }).uncheck();
    const secret = await addEndpoint(app, receiver.url, 'CI notifier');
    expect(secret).toMatch(/^whsec_/);
    expect(await app.page.getByText('it will not be shown again', { exact: false }).count()).toBe(1);
    expect(await app.page.getByRole('button', { name: 'Copy secret' }).count()).toBe(1);
    const listed = await card(app, receiver.url).innerText();
    expect(listed).toContain('Enabled');
    expect(listed).toContain('CI notifier');
    expect(listed).toContain('execution.completed');
    expect(listed).not.toContain('credits.granted');
    await expectAccessible(app, 'webhooks-created');
    await screenshot(app, 'webhooks-created');

    await sendTest(app, receiver, 1);
    const request = receiver.received[0] as Receiver['received'][number];
    expect(receiver.verified(request, secret)).toMatchObject({ type: 'webhook.test' });

    await app.page.reload();
    await card(app, receiver.url).waitFor();
    expect(await secretField(app).count()).toBe(0);
    expect(await app.page.content()).not.toContain(secret);

    await card(app, receiver.url).getByRole('link', { name: 'Delivery log' }).click();
    await app.page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor();
    const row = app.page.getByRole('row').filter({ hasText: 'webhook.test' });
    await row.getByText('delivered', { exact: true }).waitFor();
    expect(await row.innerText()).toContain('answered 204');
    await expectAccessible(app, 'webhooks-deliveries');
    await screenshot(app, 'webhooks-deliveries');

    await row.getByRole('link', { name: /^Details/ }).click();
    await app.page.getByRole('heading', { name: 'Payload' }).waitFor();
    // The message id shown is the webhook-id the receiver got.
    expect(await app.page.getByText(request.id, { exact: true }).count()).toBe(1);
    const attempt = app.page.getByRole('row').filter({ hasText: '204' });
    expect(await attempt.getByRole('rowheader').innerText()).toBe('1');
    expect(await app.page.locator('pre').innerText()).toContain('"type": "webhook.test"');
    await expectAccessible(app, 'webhooks-delivery');
    await screenshot(app, 'webhooks-delivery');
    expectNoPageErrors(app);
  });

  test('a receiver answering 500 leaves the delivery pending with its answer; Redeliver once it recovers tries it again at once', async ({
    openPage,
  }) => {
    const receiver = await receiverFor(500);
    const app = await openPage(viewport);
    await signUpAtWebhooks(app);
    const secret = await addEndpoint(app, receiver.url);
    await app.page.getByRole('button', { name: 'I have saved it' }).click();
    await sendTest(app, receiver, 1);

    await card(app, receiver.url).getByRole('link', { name: 'Delivery log' }).click();
    const row = app.page.getByRole('row').filter({ hasText: 'webhook.test' });
    await row.getByText('the receiver answered 500').waitFor();
    expect(await row.getByText('pending', { exact: true }).count()).toBe(1);
    await row.getByRole('link', { name: /^Details/ }).click();
    await app.page.getByRole('cell', { name: 'the receiver answered 500' }).waitFor();
    await expectAccessible(app, 'webhooks-failed');
    await screenshot(app, 'webhooks-failed');
    const failedUrl = app.page.url();

    receiver.answer(answerWith(200));
    // A delivery that waits for its retry is tried now, as itself: no second delivery.
    await app.page.getByRole('button', { name: 'Redeliver' }).click();
    await app.page
      .getByRole('heading', { name: /webhook\.test/ })
      .getByText('delivered', { exact: true })
      .waitFor();
    const [first, again] = receiver.received as [Receiver['received'][number], Receiver['received'][number]];
    expect(again.id).toBe(first.id);
    expect(receiver.verified(again, secret)).toMatchObject({ type: 'webhook.test' });
    expect(app.page.url()).toBe(failedUrl);
    await app.page.getByRole('link', { name: 'Back to the delivery log' }).click();
    await app.page.getByRole('row').filter({ hasText: 'answered 200' }).waitFor();
    expect(await app.page.getByRole('row').filter({ hasText: 'webhook.test' }).count()).toBe(1);
    expectNoPageErrors(app);
  });

  test('disabling stops test events until enabled; rotating asks first and shows a new secret that signs from then on, beside the old one for a day', async ({
    openPage,
  }) => {
    const receiver = await receiverFor();
    const app = await openPage(viewport);
    await signUpAtWebhooks(app);
    const old = await addEndpoint(app, receiver.url);
    await app.page.getByRole('button', { name: 'I have saved it' }).click();
    const endpoint = card(app, receiver.url);

    await endpoint.getByRole('button', { name: 'Disable' }).click();
    await endpoint.getByText('Disabled', { exact: true }).waitFor();
    expect(await endpoint.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await endpoint.getByRole('button', { name: 'Enable' }).click();
    await endpoint.getByText('Enabled', { exact: true }).waitFor();

    await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
    await endpoint.getByRole('button', { name: 'Cancel' }).click();
    expect(await secretField(app).count()).toBe(0);
    await endpoint.getByRole('button', { name: 'Rotate secret' }).click();
    await endpoint.getByRole('button', { name: 'Yes, rotate' }).click();
    await app.page.getByRole('heading', { name: `New signing secret for ${receiver.url}` }).waitFor();
    const rotated = await secretField(app).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(old);
    await expectAccessible(app, 'webhooks-rotated');
    await screenshot(app, 'webhooks-rotated');

    await sendTest(app, receiver, 1);
    const request = receiver.received[0] as Receiver['received'][number];
    // For a day both secrets sign, so a receiver still holding the old one keeps verifying.
    expect(receiver.verified(request, rotated)).toMatchObject({ type: 'webhook.test' });
    expect(receiver.verified(request, old)).toMatchObject({ type: 'webhook.test' });
    expectNoPageErrors(app);
  });

  test('deleting asks first; a URL the server refuses is told in place', async ({ openPage }) => {
    const receiver = await receiverFor();
    const app = await openPage(viewport);
    await signUpAtWebhooks(app);

    await app.page.getByLabel('Endpoint URL').fill('ftp://example.com/hooks');
    await app.page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await app.page.getByRole('alert').innerText()).toContain('url must be an absolute http or https URL');
    await expectAccessible(app, 'webhooks-refused');
    await screenshot(app, 'webhooks-refused');

    await addEndpoint(app, receiver.url);
    await app.page.getByRole('button', { name: 'I have saved it' }).click();
    const endpoint = card(app, receiver.url);
    await endpoint.getByRole('button', { name: 'Delete' }).click();
    await endpoint.getByRole('button', { name: 'Cancel' }).click();
    await endpoint.getByRole('button', { name: 'Delete' }).click();
    await endpoint.getByRole('button', { name: 'Yes, delete' }).click();
    await app.page.getByText(`Deleted ${receiver.url}.`).waitFor();
    await app.page.getByText('No endpoints yet.', { exact: false }).waitFor();
    const listed = await app.page.request.get('/api/v1/webhooks', { headers: { 'x-skillet-app': '1' } });
    expect(await listed.json()).toEqual({ webhooks: [] });
    forgiveStatus(app, 400);
    expectNoPageErrors(app);
  });

  test("a team member who is not an admin is told they may not manage the workspace's webhooks", async ({ openPage, api }) => {
    const owner = await signUp(api);
    const team = await createTeam(api, owner, 'Webhook team');
    const app = await openPage(viewport);
    const { email } = await signUpInApp(app);
    const added = await api.post(`/api/v1/workspaces/${team.id}/members`, {
      body: { email, role: 'member' },
      headers: session(owner),
    });
    expect(added.status).toBe(201);
    const switched = await app.page.request.put('/api/v1/workspaces/current', {
      headers: { 'x-skillet-app': '1' },
      data: { workspaceId: team.id },
    });
    expect(switched.status()).toBe(200);

    await app.page.goto('/app/webhooks');
    const alert = app.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Managing webhooks needs the owner or admin role');
    expect(await app.page.getByLabel('Endpoint URL').count()).toBe(0);
    await expectAccessible(app, 'webhooks-forbidden');
    await screenshot(app, 'webhooks-forbidden');
    forgiveStatus(app, 403);
    expectNoPageErrors(app);
  });
});
