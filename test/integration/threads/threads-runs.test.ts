import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { agentEnv, withAgentServer } from '../../helpers/agent.js';
import { session, signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';
import { reply, startRunCall } from '../../helpers/thread-plans.js';
import { answerApproval, recordsOf, sendToThread, subscribe, type ThreadFrame } from '../../helpers/thread-streams.js';

const it = withAgentServer();

describe('runs started from a thread', () => {
  it('runs a tool the person approves, and tells the thread when its run completes', async ({
    api,
    server,
    anthropic,
    person,
  }) => {
    const threadId = `t-${randomUUID()}`;
    const stream = await subscribe(server.url, person, 'assistant', threadId);
    const before = anthropic.requests.length;
    anthropic.plan(startRunCall('ticker', '2 10'), reply('Started it.'), reply('The ticker finished.'));
    await sendToThread(api, person, 'assistant', threadId, 'Run the ticker please');

    const request = await stream.waitFor((frame) => frame.type === 'tool.approval_request');
    expect(request).toMatchObject({ tool: 'start_run', input: { skill: 'ticker', input: '2 10' } });
    const answer = await answerApproval(api, person, threadId, request.approvalId, true);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ approvalId: request.approvalId, status: 'approved' });

    const result = await stream.waitFor((frame) => frame.type === 'tool.result');
    expect(result).toMatchObject({ tool: 'start_run', status: 'ok' });
    const notification = await stream.waitFor((frame) => frame.type === 'notification');
    const executionId = String(notification.executionId);
    expect(notification.text).toMatch(new RegExp(`^<notification>Run ${executionId} of ticker completed: .*</notification>$`));
    // The notification wakes the agent: a turn that saw it answers.
    const woken = await stream.waitFor(
      (frame) => frame.type === 'agent.turn_end' && Number(frame.through) >= notification.sequence,
    );
    expect(woken).toMatchObject({ stopReason: 'end_turn' });
    expect(recordsOf(stream).some((frame) => frame.type === 'agent.message' && frame.text === 'The ticker finished.')).toBe(true);
    expect(JSON.stringify(anthropic.requests[before + 2]?.body)).toContain('<notification>Run ');

    const status = await api.get<{ status: string }>(`/api/v1/executions/${executionId}/status`, { headers: session(person) });
    expect(status.body.status).toBe('completed');
    stream.close();
  });

  it('starts nothing when the person denies the tool call', async ({ api, server, anthropic, person }) => {
    const threadId = `t-${randomUUID()}`;
    const stream = await subscribe(server.url, person, 'assistant', threadId);
    anthropic.plan(startRunCall('ticker', '2 10'), reply('Fine, I will not.'));
    await sendToThread(api, person, 'assistant', threadId, 'Run the ticker');
    const request = await stream.waitFor((frame) => frame.type === 'tool.approval_request');
    const answer = await answerApproval(api, person, threadId, request.approvalId, false);
    expect(answer.body).toMatchObject({ status: 'denied' });
    await stream.waitFor((frame) => frame.type === 'agent.turn_end');
    expect(recordsOf(stream).find((frame) => frame.type === 'tool.result')).toMatchObject({ status: 'denied' });
    const history = await api.get<{ items: unknown[] }>('/api/v1/executions', { headers: session(person) });
    expect(history.body.items).toEqual([]);
    expect(recordsOf(stream).some((frame: ThreadFrame) => frame.type === 'notification')).toBe(false);
    stream.close();
  });

  it('tells the thread why a run it started failed', async ({ api, server, anthropic, person }) => {
    const threadId = `t-${randomUUID()}`;
    const stream = await subscribe(server.url, person, 'assistant', threadId);
    anthropic.plan(startRunCall('crashes', 'now'), reply('Started.'), reply('It failed, sorry.'));
    await sendToThread(api, person, 'assistant', threadId, 'Run the crashing one');
    const request = await stream.waitFor((frame) => frame.type === 'tool.approval_request');
    await answerApproval(api, person, threadId, request.approvalId, true);
    const notification = await stream.waitFor((frame) => frame.type === 'notification');
    expect(notification.text).toMatch(/^<notification>Run \S+ of crashes failed: .+<\/notification>$/);
    await stream.waitFor((frame) => frame.type === 'agent.turn_end' && Number(frame.through) >= notification.sequence);
    stream.close();
  });

  it('shuts down promptly with a subscription open and a turn waiting on an approval, ending that turn', async ({
    anthropic,
    openai,
  }) => {
    const own = await startServer(agentEnv({ anthropic: anthropic.url, openai: openai.url }));
    const api = client(own.url);
    const person = await signUp(api);
    const threadId = `t-${randomUUID()}`;
    const stream = await subscribe(own.url, person, 'assistant', threadId);
    anthropic.plan(startRunCall('ticker', '1 10'));
    await sendToThread(api, person, 'assistant', threadId, 'Run it');
    await stream.waitFor((frame) => frame.type === 'tool.approval_request');
    const db = own.db.db;
    const closing = own.app.close();
    await stream.ended;
    await closing;
    const ends = await db
      .selectFrom('thread_records')
      .select('frame')
      .where('type', '=', 'agent.turn_end')
      .execute()
      .finally(() => own.close());
    expect(ends).toHaveLength(1);
    expect(JSON.parse(ends[0]?.frame.split('data: ')[1] ?? '{}')).toMatchObject({ stopReason: 'error' });
    expect(own.logs.filter((line) => line.includes('thread turn failed'))).toEqual([]);
  });
});
