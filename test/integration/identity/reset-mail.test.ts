import { afterAll, describe, expect } from 'vitest';
import { startFakeSmtp } from '../../fakes/smtp.js';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { type Client, client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

const smtp = await startFakeSmtp();
afterAll(() => smtp.close());

const it = withServer({ SMTP_URL: smtp.url, MAIL_FROM: 'Skillet <no-reply@skillet.test>', RATE_LIMIT_REST_PER_MINUTE: '100000' });

/** The link in a received mail (quoted-printable soft breaks undone). */
function linkIn(raw: string): string {
  const body = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const found = /https?:\/\/\S+\/app\/reset-password#token=sklt_reset_[0-9A-Za-z]{40}/.exec(body);
  expect(found, body).not.toBeNull();
  return found?.[0] as string;
}

/**
 * Asks a link for another account and waits for its mail, instead of waiting a while. The
 * server decides whether to mail before it answers and starts sending then, so a mail an
 * earlier request had earned set off before this one's; once this one is in, the other's
 * absence means none was sent.
 */
async function mailedAfter(api: Client): Promise<void> {
  const witness = await signUp(api);
  expect((await api.post('/api/v1/auth/password-reset/request', { body: { email: witness.email } })).status).toBe(202);
  await expect.poll(() => smtp.mails.some((mail) => mail.to.includes(witness.email))).toBe(true);
}

describe('a reset link by mail', () => {
  it('mails a one-time link to an account’s address, and the same answer, with no mail, to any other', async ({ api }) => {
    const person = await signUp(api);
    const before = smtp.mails.length;
    const asked = await api.post('/api/v1/auth/password-reset/request', { body: { email: `  ${person.email.toUpperCase()} ` } });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ success: true });
    await expect.poll(() => smtp.mails.length).toBe(before + 1);
    const mail = smtp.mails.at(-1);
    expect(mail?.to).toEqual([person.email]);
    expect(mail?.from).toBe('no-reply@skillet.test');
    expect(mail?.raw).toContain('Subject: Reset your Skillet password');

    const token = new URL(linkIn(mail?.raw ?? '')).hash.slice('#token='.length);
    const reset = await api.post('/api/v1/auth/password-reset', { body: { token, newPassword: 'a mailed new password' } });
    expect(reset.status).toBe(200);
    const signedIn = await api.post('/api/v1/auth/login', { body: { email: person.email, password: 'a mailed new password' } });
    expect(signedIn.status).toBe(200);

    const stranger = await api.post('/api/v1/auth/password-reset/request', { body: { email: 'nobody-here@example.test' } });
    expect(stranger.status).toBe(202);
    expect(stranger.body).toEqual(asked.body);
    await mailedAfter(api);
    expect(smtp.mails.filter((mail) => mail.to.includes('nobody-here@example.test'))).toEqual([]);
  });

  it('sends one address at most three links an hour, whoever asks', async ({ api }) => {
    const person = await signUp(api);
    const before = smtp.mails.filter((mail) => mail.to.includes(person.email)).length;
    for (let i = 0; i < 5; i++) {
      expect((await api.post('/api/v1/auth/password-reset/request', { body: { email: person.email } })).status).toBe(202);
    }
    await expect.poll(() => smtp.mails.filter((mail) => mail.to.includes(person.email)).length).toBe(before + 3);
    await mailedAfter(api);
    expect(smtp.mails.filter((mail) => mail.to.includes(person.email)).length).toBe(before + 3);
  });

  it('says so in words where the server sends no mail', async () => {
    const plain = await startServer({});
    try {
      const api = client(plain.url);
      const refused = await api.post('/api/v1/auth/password-reset/request', { body: { email: 'someone@example.test' } });
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'This server does not send email. Ask whoever runs it for a password reset link.',
        },
      });
      expect((await api.get('/api/v1/app/session')).body).toEqual({ me: null, mailsResetLinks: false });
    } finally {
      await plain.close();
    }
  });
});
