import { describe, expect } from 'vitest';
import { confirmActivation, createActivation, denyActivation } from '../../src/activation/activation.js';
import { ACTIVATION_TTL_SECONDS } from '../../src/activation/lifecycle.js';
import { pollActivation } from '../../src/activation/poll.js';
import type { AppContext } from '../../src/context.js';
import { callerFromApiKey } from '../../src/identity/api-keys.js';
import { decrypt, sha256Hex } from '../../src/secrets.js';
import { withDomain } from '../helpers/domain.js';
import { aTeam, aUser, callerFor, type UserWithWorkspace } from '../helpers/rows.js';

const it = withDomain();

const TTL_MS = ACTIVATION_TTL_SECONDS * 1000;
const CLIENT = { label: 'Test CLI', userAgent: 'skillet-cli/1.0', ip: '127.0.0.1' };

/** A new code, as a device holds it: the hash of its device code is what a poll sends. */
async function aCode(ctx: AppContext) {
  const created = await createActivation(ctx, CLIENT);
  return { ...created, deviceCodeHash: sha256Hex(created.deviceCode) };
}

async function approve(ctx: AppContext, user: UserWithWorkspace, userCode: string, workspaceId?: string): Promise<void> {
  const caller = callerFor(user, workspaceId ? { workspaceId } : {});
  await confirmActivation(ctx, caller, userCode, { workspaceNamed: workspaceId !== undefined });
}

function storedCode(ctx: AppContext, userCode: string) {
  return ctx.db
    .selectFrom('activations')
    .select(['status', 'sealed_key', 'claimed_at', 'api_key_id'])
    .where('user_code', '=', userCode)
    .executeTakeFirstOrThrow();
}

async function nameOf(ctx: AppContext, workspaceId: string): Promise<string | null> {
  const row = await ctx.db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirstOrThrow();
  return row.name;
}

describe('polling an activation', () => {
  it('reads an unknown code, or a user code sent as the device code, as expired', async ({ ctx }) => {
    const code = await aCode(ctx);
    expect(await pollActivation(ctx, sha256Hex('no such device code'))).toEqual({ status: 'expired' });
    expect(await pollActivation(ctx, code.userCode)).toEqual({ status: 'expired' });
    expect(await pollActivation(ctx, sha256Hex(code.userCode))).toEqual({ status: 'expired' });
    // None of those touched the real code.
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'pending' });
  });

  it('says pending until the code has lived its time, then expired, and stores the expiry', async ({ ctx, domain }) => {
    const code = await aCode(ctx);
    expect(code.expiresIn).toBe(ACTIVATION_TTL_SECONDS);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'pending' });
    domain.clock.advance(TTL_MS - 1);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'pending' });
    expect((await storedCode(ctx, code.userCode)).status).toBe('pending');

    domain.clock.advance(1);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'expired' });
    expect((await storedCode(ctx, code.userCode)).status).toBe('expired');
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'expired' });
  });

  it('hands over the key of an approved code once, with its workspace and tier; every poll after says consumed', async ({
    ctx,
    domain,
  }) => {
    const user = await aUser(ctx.db);
    const code = await aCode(ctx);
    await approve(ctx, user, code.userCode);
    domain.clock.advance(1000);

    const claimed = await pollActivation(ctx, code.deviceCodeHash);
    expect(claimed).toEqual({
      status: 'approved',
      api_key: expect.any(String),
      tier: 'paygmode',
      workspace: { id: user.workspaceId, name: await nameOf(ctx, user.workspaceId) },
    });
    // The key handed over is the approver's, live, in the workspace named.
    const key = claimed.status === 'approved' ? claimed.api_key : '';
    expect(await callerFromApiKey(ctx, key)).toMatchObject({ kind: 'api_key', userId: user.id, workspaceId: user.workspaceId });
    expect(await storedCode(ctx, code.userCode)).toMatchObject({
      status: 'consumed',
      sealed_key: null,
      claimed_at: domain.clock.now().toISOString(),
    });

    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'consumed' });
    // Past its time, a claimed code stays consumed: only a live code can run out.
    domain.clock.advance(TTL_MS);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'consumed' });
    expect(await callerFromApiKey(ctx, key)).not.toBeNull();
  });

  it('names the team workspace the approver chose, with its name', async ({ ctx }) => {
    const user = await aUser(ctx.db);
    const team = await aTeam(ctx.db, { owner: user });
    const code = await aCode(ctx);
    await approve(ctx, user, code.userCode, team.id);

    const claimed = await pollActivation(ctx, code.deviceCodeHash);
    expect(claimed).toMatchObject({ status: 'approved', workspace: { id: team.id, name: await nameOf(ctx, team.id) } });
    expect(claimed.status === 'approved' && claimed.workspace.name).toMatch(/^Team /);
  });

  it("gives the approver's tier as it stands when the key is claimed", async ({ ctx }) => {
    const user = await aUser(ctx.db);
    const code = await aCode(ctx);
    await approve(ctx, user, code.userCode);
    await ctx.db.updateTable('users').set({ site_license_until: '2099-01-01T00:00:00.000Z' }).where('id', '=', user.id).execute();

    expect(await pollActivation(ctx, code.deviceCodeHash)).toMatchObject({ status: 'approved', tier: 'sitelicense' });
  });

  it('hands the key to exactly one of several polls at once', async ({ ctx }) => {
    for (let round = 0; round < 5; round++) {
      const code = await aCode(ctx);
      await approve(ctx, await aUser(ctx.db), code.userCode);
      const polls = await Promise.all(Array.from({ length: 4 }, () => pollActivation(ctx, code.deviceCodeHash)));
      expect(polls.filter((poll) => poll.status === 'approved')).toHaveLength(1);
      expect(polls.filter((poll) => poll.status === 'consumed')).toHaveLength(3);
    }
  });

  it('says expired for an approved code not claimed in time, and the key minted for it no longer works', async ({
    ctx,
    domain,
  }) => {
    const user = await aUser(ctx.db);
    const code = await aCode(ctx);
    await approve(ctx, user, code.userCode);
    const sealed = (await storedCode(ctx, code.userCode)).sealed_key;
    const minted = decrypt(ctx.keys.sealing, sealed ?? '');
    expect(await callerFromApiKey(ctx, minted)).not.toBeNull();

    domain.clock.advance(TTL_MS);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'expired' });
    expect(await storedCode(ctx, code.userCode)).toMatchObject({ status: 'expired', sealed_key: null, claimed_at: null });
    expect(await callerFromApiKey(ctx, minted)).toBeNull();
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'expired' });
  });

  it('says denied for a denied code, then and after its time', async ({ ctx, domain }) => {
    const user = await aUser(ctx.db);
    const code = await aCode(ctx);
    await denyActivation(ctx, callerFor(user), code.userCode);

    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'denied' });
    domain.clock.advance(TTL_MS);
    expect(await pollActivation(ctx, code.deviceCodeHash)).toEqual({ status: 'denied' });
    expect((await storedCode(ctx, code.userCode)).status).toBe('denied');
  });
});
