import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Activation } from '../../src/sdk/types.js';
import type { Client } from './http.js';
import type { TestServer } from './server.js';

export interface TestUser {
  token: string;
  email: string;
  password: string;
  user: { id: string; email: string; isAdmin: boolean; personalWorkspaceId: string; createdAt: string };
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}@example.test`;
}

export async function signUp(api: Client, email = uniqueEmail()): Promise<TestUser> {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const reply = await api.post<Omit<TestUser, 'email' | 'password'>>('/api/v1/auth/signup', { body: { email, password } });
  expect(reply.status).toBe(201);
  return { ...reply.body, email, password };
}

export function session(user: TestUser, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-auth-token': user.token, ...extra };
}

/**
 * Starts an activation. Creation is limited per client IP, and every test client is
 * 127.0.0.1, so the clock first moves past the limiter's interval.
 */
export async function startActivation(
  server: TestServer,
  api: Client,
  headers: Record<string, string> = {},
): Promise<Activation> {
  server.clock.advance(server.config.rateLimits.activationCreateIntervalMs);
  const reply = await api.post<Activation>('/api/v1/activate', { headers: { 'content-type': 'application/json', ...headers } });
  expect(reply.status).toBe(200);
  return reply.body;
}

export async function createTeam(api: Client, owner: TestUser, name = 'Team'): Promise<{ id: string; name: string }> {
  const reply = await api.post<{ id: string; name: string }>('/api/v1/workspaces', { body: { name }, headers: session(owner) });
  expect(reply.status).toBe(201);
  return reply.body;
}

export async function createKey(api: Client, owner: TestUser, label = 'test key', headers: Record<string, string> = {}) {
  const reply = await api.post<{ id: string; key: string; workspaceId: string }>('/api/v1/keys', {
    body: { label },
    headers: session(owner, headers),
  });
  expect(reply.status).toBe(201);
  return reply.body;
}
