import { describe, expect } from 'vitest';
import { manageableArtifact, readableArtifact } from '../../src/artifacts/access.js';
import { listArtifacts } from '../../src/artifacts/artifacts.js';
import { ExecutionRunning, Forbidden, NotFound } from '../../src/errors.js';
import { withDomain } from '../helpers/domain.js';
import { anArtifact, anExecution, aTeam, aUser, callerFor } from '../helpers/rows.js';

const it = withDomain();

describe('artifacts belong to a workspace', () => {
  it('are not there at all for a caller in another workspace, even the same user', async ({ ctx, db }) => {
    const owner = await aUser(db);
    const team = await aTeam(db, { owner });
    const artifact = await anArtifact(db, { execution: await anExecution(db, { user: owner, workspaceId: team.id }) });
    await expect(readableArtifact(ctx, callerFor(owner), artifact.id)).rejects.toBeInstanceOf(NotFound);
    await expect(readableArtifact(ctx, callerFor(await aUser(db)), artifact.id)).rejects.toBeInstanceOf(NotFound);
    expect((await readableArtifact(ctx, callerFor(owner, { workspaceId: team.id }), artifact.id)).id).toBe(artifact.id);
  });

  it('are read by every member of their workspace, but not while their run still writes them', async ({ ctx, db }) => {
    const member = await aUser(db);
    const team = await aTeam(db, { members: [{ user: member, role: 'member' }] });
    const execution = await anExecution(db, { user: team.owner, workspaceId: team.id, status: 'working' });
    const done = await anArtifact(db, { execution });
    const writing = await anArtifact(db, { execution, status: 'pending' });
    const asMember = callerFor(member, { workspaceId: team.id, role: 'member' });
    expect((await readableArtifact(ctx, asMember, done.id)).id).toBe(done.id);
    await expect(readableArtifact(ctx, asMember, writing.id)).rejects.toBeInstanceOf(ExecutionRunning);
  });

  it('are managed (published, deleted) by owners and admins only', async ({ ctx, db }) => {
    const member = await aUser(db);
    const admin = await aUser(db);
    const team = await aTeam(db, {
      members: [
        { user: member, role: 'member' },
        { user: admin, role: 'admin' },
      ],
    });
    const artifact = await anArtifact(db, {
      execution: await anExecution(db, { user: member, workspaceId: team.id, status: 'completed' }),
    });
    await expect(
      manageableArtifact(ctx, callerFor(member, { workspaceId: team.id, role: 'member' }), artifact.id),
    ).rejects.toBeInstanceOf(Forbidden);
    expect((await manageableArtifact(ctx, callerFor(admin, { workspaceId: team.id, role: 'admin' }), artifact.id)).id).toBe(
      artifact.id,
    );
    expect((await manageableArtifact(ctx, callerFor(team.owner, { workspaceId: team.id }), artifact.id)).id).toBe(artifact.id);
  });

  it('are listed and counted per workspace', async ({ ctx, db }) => {
    const owner = await aUser(db);
    const team = await aTeam(db, { owner });
    const personalRun = await anExecution(db, { user: owner, status: 'completed' });
    const teamRun = await anExecution(db, { user: owner, workspaceId: team.id, status: 'completed' });
    const personal = [await anArtifact(db, { execution: personalRun }), await anArtifact(db, { execution: personalRun })];
    const inTeam = await anArtifact(db, { execution: teamRun });

    const mine = await listArtifacts(ctx, callerFor(owner), 10, 0);
    expect(mine.total).toBe(2);
    expect(mine.items.map((item) => item.id).sort()).toEqual(personal.map((artifact) => artifact.id).sort());
    const theTeam = await listArtifacts(ctx, callerFor(owner, { workspaceId: team.id }), 10, 0);
    expect(theTeam).toMatchObject({ total: 1, items: [{ id: inTeam.id }] });
  });
});
