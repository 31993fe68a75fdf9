import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { Forbidden } from '../../src/errors.js';
import { callerFromAccessToken, isGrantLive } from '../../src/identity/oauth-access-tokens.js';
import { databaseAdapter } from '../../src/oauth/adapter.js';
import { bindGrantToWorkspace } from '../../src/oauth/consent.js';
import { sweepExpiredOAuthRecords } from '../../src/oauth/sweep.js';
import { withDomain } from '../helpers/domain.js';
import { aTeam, aUser } from '../helpers/rows.js';

const it = withDomain();

describe('the oidc-provider adapter on our database', () => {
  it('stores, replaces, consumes and finds records by id and uid, and hides them once expired by our clock', async ({
    ctx,
    domain,
  }) => {
    const sessions = databaseAdapter(ctx, 'Session');
    const id = randomUUID();
    await sessions.upsert(id, { uid: 'uid-1', accountId: 'a' }, 60);
    await sessions.upsert(id, { uid: 'uid-1', accountId: 'b' }, 60);
    expect(await sessions.find(id)).toEqual({ uid: 'uid-1', accountId: 'b' });
    expect(await sessions.findByUid('uid-1')).toEqual({ uid: 'uid-1', accountId: 'b' });
    expect(await databaseAdapter(ctx, 'Interaction').find(id)).toBeUndefined();

    const codes = databaseAdapter(ctx, 'AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'g' }, 60);
    await codes.consume('code-1');
    expect((await codes.find('code-1'))?.consumed).toBeTypeOf('number');

    domain.clock.advance(61_000);
    try {
      expect(await sessions.find(id)).toBeUndefined();
      expect(await sessions.findByUid('uid-1')).toBeUndefined();
    } finally {
      domain.clock.advance(-61_000);
    }
    await sessions.destroy(id);
    expect(await sessions.find(id)).toBeUndefined();
  });

  it("revokes a grant's tokens but keeps the grant and its workspace until the grant is destroyed", async ({ ctx, db }) => {
    const user = await aUser(db);
    const grantId = `grant-${randomUUID()}`;
    await databaseAdapter(ctx, 'Grant').upsert(grantId, { accountId: user.id }, 3600);
    await bindGrantToWorkspace(ctx, { userId: user.id, grantId, workspaceId: user.workspaceId });
    const tokens = databaseAdapter(ctx, 'AccessToken');
    await tokens.upsert('at-1', { grantId, accountId: user.id, aud: `${ctx.config.publicUrl}/api/v1`, scope: 'read' }, 3600);
    expect(await callerFromAccessToken(ctx, 'at-1', 'api')).toMatchObject({
      kind: 'oauth',
      credentialId: grantId,
      scopes: ['read'],
    });
    expect(await callerFromAccessToken(ctx, 'at-1', 'mcp')).toBeNull();
    const ref = { kind: 'oauth' as const, credentialId: grantId, workspaceId: user.workspaceId };
    expect(await isGrantLive(ctx, ref)).toBe(true);

    await tokens.revokeByGrantId(grantId);
    expect(await tokens.find('at-1')).toBeUndefined();
    expect(await isGrantLive(ctx, ref)).toBe(false);
    expect(await databaseAdapter(ctx, 'Grant').find(grantId)).toBeDefined();

    await tokens.upsert('at-2', { grantId, accountId: user.id, aud: `${ctx.config.publicUrl}/api/v1` }, 3600);
    expect(await callerFromAccessToken(ctx, 'at-2', 'api')).not.toBeNull();
    await databaseAdapter(ctx, 'Grant').destroy(grantId);
    expect(await callerFromAccessToken(ctx, 'at-2', 'api')).toBeNull();
  });

  it('binds a grant only to a workspace the person belongs to, and drops the token when they leave it', async ({ ctx, db }) => {
    const user = await aUser(db);
    const other = await aTeam(db);
    const grantId = `grant-${randomUUID()}`;
    await expect(bindGrantToWorkspace(ctx, { userId: user.id, grantId, workspaceId: other.id })).rejects.toBeInstanceOf(
      Forbidden,
    );

    const team = await aTeam(db, { members: [{ user, role: 'member' }] });
    await bindGrantToWorkspace(ctx, { userId: user.id, grantId, workspaceId: team.id });
    await databaseAdapter(ctx, 'AccessToken').upsert(
      'at-3',
      { grantId, accountId: user.id, aud: `${ctx.config.publicUrl}/mcp` },
      60,
    );
    expect((await callerFromAccessToken(ctx, 'at-3', 'mcp'))?.workspaceId).toBe(team.id);
    await db.deleteFrom('workspace_members').where('workspace_id', '=', team.id).where('user_id', '=', user.id).execute();
    expect(await callerFromAccessToken(ctx, 'at-3', 'mcp')).toBeNull();
  });

  it('sweeps expired records and the bindings of grants no longer stored', async ({ ctx, db, domain }) => {
    const user = await aUser(db);
    const grantId = `grant-${randomUUID()}`;
    await databaseAdapter(ctx, 'Grant').upsert(grantId, { accountId: user.id }, 60);
    await bindGrantToWorkspace(ctx, { userId: user.id, grantId, workspaceId: user.workspaceId });
    domain.clock.advance(61_000);
    try {
      expect(await sweepExpiredOAuthRecords(ctx)).toBeGreaterThan(0);
    } finally {
      domain.clock.advance(-61_000);
    }
    const left = await db.selectFrom('oauth_grant_workspaces').selectAll().where('grant_id', '=', grantId).execute();
    expect(left).toEqual([]);
  });
});
