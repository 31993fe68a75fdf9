import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { findExecution } from '../../src/runs/executions.store.js';
import { createKey, createTeam, session, signUp, type TestUser } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import { anArtifact, anExecution } from '../helpers/rows.js';
import type { TestApp } from '../helpers/server.js';

/**
 * Two people, A (who fuzzes) and B (whose data A must never see), each with real
 * resources: workspaces, keys, runs and their artifacts, a connect request, a BYOK key and
 * an agent thread where the server has agents. Everything of B's carries `marker`, so a
 * leak shows up as the marker (or one of B's ids) in an answer to A.
 */

export interface Holdings {
  user: TestUser;
  apiKey: string;
  /** Ids of the person's resources that A may aim at (none of them a credential A relies on). */
  ids: string[];
  /** What the person reads to see all of it, for checking that nobody else changed it. */
  reads: string[];
  /** A run of theirs that has ended. */
  run: string;
}

export interface TwoWorkspaces {
  a: Holdings;
  b: Holdings;
  /** What B's reads answered before A's requests. */
  before: Snapshot;
  /** B's marker and B's secrets (email, token, keys): A never sends them, so none may appear in an answer to A. */
  secretsOfB: string[];
  /** Strings valid somewhere: skill slugs, pack ids, agent ids, B's thread name (a name A may reuse for a thread of its own). */
  words: string[];
  /** The query that signs A's stream URL for A's run (ts and sig). */
  streamSignatureOfA: string;
}

/** A run started and waited for, so its artifact exists; `input` becomes its one file's text. */
async function finishedRun(api: Client, headers: Record<string, string>, text: string): Promise<string> {
  const input = JSON.stringify({ files: [{ path: 'note.txt', text }] });
  const created = await api.post<{ id: string }>('/api/v1/executions', { body: { skill_slug: 'writer', input }, headers });
  expect(created.status).toBe(200);
  const started = await api.post(`/api/v1/executions/${created.body.id}/events`, {
    body: { events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }] },
    headers,
  });
  expect(started.status).toBe(200);
  for (let attempt = 0; attempt < 200; attempt++) {
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.body.id}/status`, { headers });
    if (status.body.status !== 'working') return created.body.id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${created.body.id} did not end`);
}

/** An artifact whose run is still writing it, as a run leaves it mid-way: its routes answer 429 isRunning. */
async function pendingArtifact(db: TestApp['db'], executionId: string, tag: string): Promise<string> {
  const execution = await findExecution(db.db, executionId);
  if (!execution) throw new Error(`execution ${executionId} is gone`);
  return (await anArtifact(db.db, { execution, status: 'pending', title: `pending ${tag}` })).id;
}

async function holdings(
  api: Client,
  db: TestApp['db'],
  tag: string,
): Promise<Holdings & { secrets: string[]; threadName?: string }> {
  const user = await signUp(api, `${tag}-${randomBytes(4).toString('hex')}@example.test`);
  const headers = session(user);
  const team = await createTeam(api, user, `team ${tag}`);
  const key = await createKey(api, user, `key ${tag}`);
  const spare = await createKey(api, user, `spare ${tag}`);
  const run = await finishedRun(api, headers, `output ${tag}`);
  const waiting = await api.post<{ id: string }>('/api/v1/executions', {
    body: { skill_slug: 'empty', input: `input ${tag}` },
    headers,
  });
  const artifacts = await api.get<{ id: string }[]>('/api/v1/artifacts', { headers });
  const pending = await pendingArtifact(db, waiting.body.id, tag);
  // A run in progress (a row only: no process to wait for), so messages to it and reruns answer 429 EXECUTION_RUNNING.
  const owner = { id: user.user.id, email: user.email, isAdmin: false, workspaceId: user.user.personalWorkspaceId };
  const busy = await anExecution(db.db, { user: owner, status: 'working', skill: 'empty', input: `busy ${tag}` });
  const connect = await api.post<{ requestId: string }>('/api/v1/agents/connect', {
    body: { scopes: ['read'], label: `agent ${tag}` },
    // An agent asks with the key it holds: a session has no key to narrow.
    headers: { 'x-api-key': spare.key },
  });
  expect([waiting.status, artifacts.status, connect.status]).toEqual([200, 200, 202]);
  const byok = await api.put('/api/v1/byok', { body: { key: `sk-ant-api03-${tag}` }, headers });
  expect(byok.status).toBe(200);
  // A receiver nothing listens on (the fuzz server allows private addresses): its deliveries fail, harmlessly.
  const hook = await api.post<{ id: string; secret: string }>('/api/v1/webhooks', {
    body: { url: `http://127.0.0.1:9/${tag}`, description: `hook ${tag}` },
    headers,
  });
  expect(hook.status).toBe(201);
  const agents = await api.get<{ agents: { id: string }[] }>('/api/v1/agents', { headers });
  const agent = agents.body.agents[0];
  const threadName = agent ? `thread-${randomBytes(4).toString('hex')}` : undefined;
  if (agent && threadName) {
    const sent = await api.post(`/api/v1/agents/${agent.id}/send-message`, {
      body: { resourceId: user.user.personalWorkspaceId, threadId: threadName, message: `message ${tag}` },
      headers,
    });
    expect(sent.status).toBe(202);
  }
  const ids = [
    user.user.id,
    user.user.personalWorkspaceId,
    team.id,
    spare.id,
    run,
    waiting.body.id,
    connect.body.requestId,
    pending,
    busy.execution_id,
    hook.body.id,
    ...artifacts.body.map((artifact) => artifact.id),
  ];
  const reads = [
    ...['/me', '/workspaces', '/keys', '/executions', '/artifacts', '/byok', '/webhooks', '/billing/transactions'],
    `/workspaces/${team.id}/members`,
    `/executions/${run}/status`,
    `/executions/${waiting.body.id}/status`,
    `/agents/connect/${connect.body.requestId}`,
    `/webhooks/${hook.body.id}`,
  ].map((path) => `/api/v1${path}`);
  const secrets = [user.email, user.token, key.key, key.id, spare.key, hook.body.secret];
  return { user, apiKey: key.key, ids, reads, run, secrets, threadName };
}

export type Snapshot = Record<string, { status: number; body: unknown }>;

/** What the person's reads answer now. */
export async function snapshotOf(api: Client, holder: Holdings): Promise<Snapshot> {
  const answers = await Promise.all(holder.reads.map((path) => api.get(path, { headers: session(holder.user) })));
  return Object.fromEntries(
    holder.reads.map((path, index) => [path, { status: answers[index]?.status ?? 0, body: answers[index]?.body }]),
  );
}

/** Sets up A and B on `api`; B's resources are made first, so A's requests meet a populated database. */
export async function twoWorkspaces(api: Client, db: TestApp['db']): Promise<TwoWorkspaces> {
  const marker = `bmark${randomBytes(6).toString('hex')}`;
  const b = await holdings(api, db, marker);
  const a = await holdings(api, db, `amark${randomBytes(6).toString('hex')}`);
  const packs = await api.get<{ packs: { id: string }[] }>('/api/v1/billing/packs', { headers: session(a.user) });
  const agents = await api.get<{ agents: { id: string }[] }>('/api/v1/agents', { headers: session(a.user) });
  // A's own stream signature: the fuzzer tries it on B's runs as well as on A's.
  const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${a.run}/stream-token`, { headers: session(a.user) });
  const signed = new URL(token.body.sseUrl).searchParams;
  const streamSignatureOfA = signed.toString();
  const words = [
    signed.get('ts') ?? '',
    signed.get('sig') ?? '',
    'empty',
    'writer',
    'admin',
    'member',
    ...packs.body.packs.map((pack) => pack.id),
    ...agents.body.agents.map((agent) => agent.id),
    ...(b.threadName ? [b.threadName] : []),
  ];
  return { a, b, before: await snapshotOf(api, b), secretsOfB: [marker, ...b.secrets], words, streamSignatureOfA };
}
