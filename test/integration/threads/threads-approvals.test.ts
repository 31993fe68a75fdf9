import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { withAgentServer } from '../../helpers/agent.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import type { Client } from '../../helpers/http.js';
import { reply, startRunCall } from '../../helpers/thread-plans.js';
import { answerApproval, postStream, type ThreadStreamReader } from '../../helpers/thread-streams.js';

const it = withAgentServer();

const notFound = { error: { code: 'NOT_FOUND', message: expect.any(String) } };

/** A team workspace with an owner, an admin and a plain member, each signed in to it. */
async function teamOf(api: Client, owner: TestUser) {
  const team = await createTeam(api, owner);
  const [admin, member] = [await signUp(api), await signUp(api)];
  for (const [who, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const) {
    const added = await api.post(`/api/v1/workspaces/${team.id}/members`, {
      body: { email: who.email, role },
      headers: session(owner),
    });
    expect(added.status).toBe(201);
  }
  for (const who of [owner, admin, member]) {
    const switched = await api.put('/api/v1/workspaces/current', { body: { workspaceId: team.id }, headers: session(who) });
    expect(switched.status).toBe(200);
  }
  return { team, admin, member };
}

function subscribeTeam(url: string, who: TestUser, teamId: string, threadId: string): Promise<ThreadStreamReader> {
  return postStream(`${url}/api/v1/agents/assistant/subscribe-thread`, { resourceId: teamId, threadId }, session(who));
}

async function sendTeam(api: Client, who: TestUser, teamId: string, threadId: string, message: string) {
  const sent = await api.post('/api/v1/agents/assistant/send-message', {
    body: { resourceId: teamId, threadId, message },
    headers: session(who),
  });
  expect(sent.status).toBe(202);
}

describe('who answers a thread approval', () => {
  it("refuses a plain member the owner's approval with 404, leaving it pending and answerable by the owner", async ({
    api,
    server,
    anthropic,
    person: owner,
  }) => {
    const { team, member } = await teamOf(api, owner);
    const threadId = `t-${randomUUID()}`;
    // Threads are the workspace's: the member may watch the owner's thread, and so sees the approval id.
    const watching = await subscribeTeam(server.url, member, team.id, threadId);
    expect(watching.status).toBe(200);
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Started it.'), reply('The ticker finished.'));
    await sendTeam(api, owner, team.id, threadId, 'Run the ticker please');
    const request = await watching.waitFor((frame) => frame.type === 'tool.approval_request');
    const path = `/api/v1/agents/assistant/threads/${threadId}/approvals/${request.approvalId}`;

    const byMember = await api.post(path, { body: { approved: true }, headers: session(member) });
    expect(byMember.status).toBe(404);
    expect(byMember.body).toEqual(notFound);
    // The same answer as an approval that does not exist: the member learns nothing.
    const unknown = await answerApproval(api, member, threadId, randomUUID(), true);
    expect(byMember.body).toEqual(unknown.body);
    // A denial is an answer too: refused the same way.
    expect((await api.post(path, { body: { approved: false }, headers: session(member) })).status).toBe(404);
    // Someone of another workspace, with the ids in hand, fares no better.
    const stranger = await signUp(api);
    const byStranger = await api.post(path, { body: { approved: true }, headers: session(stranger) });
    expect(byStranger.status).toBe(404);
    expect(byStranger.body).toEqual(notFound);

    const row = await server.db.db
      .selectFrom('thread_approvals')
      .select(['status', 'decided_by'])
      .where('id', '=', String(request.approvalId))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', decided_by: null });
    const runs = await api.get<{ items: unknown[] }>('/api/v1/executions', { headers: session(owner) });
    expect(runs.body.items).toEqual([]);

    const byOwner = await api.post(path, { body: { approved: true }, headers: session(owner) });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toMatchObject({ approvalId: request.approvalId, status: 'approved' });
    const result = await watching.waitFor((frame) => frame.type === 'tool.result');
    expect(result).toMatchObject({ tool: 'start_run', status: 'ok' });
    await watching.waitFor((frame) => frame.type === 'notification');
    await watching.waitFor((frame) => frame.type === 'agent.turn_end' && frame.stopReason === 'end_turn');
    watching.close();
  });

  it("lets a workspace admin answer another person's approval, and a member their own", async ({
    api,
    server,
    anthropic,
    person: owner,
  }) => {
    const { team, admin, member } = await teamOf(api, owner);
    const threadId = `t-${randomUUID()}`;
    const watching = await subscribeTeam(server.url, owner, team.id, threadId);
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Fine, I will not.'));
    await sendTeam(api, owner, team.id, threadId, 'Run the ticker');
    const asked = await watching.waitFor((frame) => frame.type === 'tool.approval_request');
    const byAdmin = await answerApproval(api, admin, threadId, asked.approvalId, false);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ approvalId: asked.approvalId, status: 'denied' });
    await watching.waitFor((frame) => frame.type === 'agent.turn_end');

    // The member's own turn asks them, and their answer counts.
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Not running it.'));
    await sendTeam(api, member, team.id, threadId, 'Run the ticker for me');
    const theirs = await watching.waitFor(
      (frame) => frame.type === 'tool.approval_request' && frame.approvalId !== asked.approvalId,
    );
    const byMember = await answerApproval(api, member, threadId, theirs.approvalId, false);
    expect(byMember.status).toBe(200);
    expect(byMember.body).toMatchObject({ status: 'denied' });
    await watching.waitFor((frame) => frame.type === 'agent.turn_end' && Number(frame.through) > Number(asked.sequence));
    watching.close();
  });
});
