import { expect } from 'vitest';
import { session, type TestUser } from './factories.js';
import type { Client } from './http.js';
import { type OpenStream, openStream } from './sse.js';

export interface Created {
  id: string;
  skill_slug: string;
  skill_name: string;
  status: string;
}

export async function createExecution(
  api: Client,
  user: TestUser,
  skill: string,
  input: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = session(user),
) {
  const reply = await api.post<Created>('/api/v1/executions', { body: { skill_slug: skill, input, ...extra }, headers });
  expect(reply.status).toBe(200);
  return reply.body;
}

export async function streamOf(
  api: Client,
  user: TestUser,
  executionId: string,
  suffix = '',
  headers: Record<string, string> = session(user),
): Promise<OpenStream> {
  const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${executionId}/stream-token`, { headers });
  expect(token.status).toBe(200);
  return openStream(token.body.sseUrl + suffix);
}

export function sendMessage(api: Client, user: TestUser, executionId: string, text: string) {
  return api.post<{ data: { type: string; sequence: number }[] }>(`/api/v1/executions/${executionId}/events`, {
    body: { events: [{ type: 'user.message', content: [{ type: 'text', text }] }] },
    headers: session(user),
  });
}

/** Creates an execution, opens its stream, starts it, and waits for the stream to end. */
export async function runToEnd(api: Client, user: TestUser, skill: string, input: string) {
  const created = await createExecution(api, user, skill, input);
  const stream = await streamOf(api, user, created.id);
  const started = await sendMessage(api, user, created.id, input);
  expect(started.status).toBe(200);
  await stream.ended;
  return { created, stream };
}

/** The event types of one completed run of the ticker skill that sends `ticks` messages. */
export function tickerRunTypes(ticks: number): string[] {
  return [
    'user.message',
    'session.status_running',
    ...Array.from({ length: ticks }, () => 'agent.message'),
    'execution.result',
    'session.status_idle',
  ];
}
