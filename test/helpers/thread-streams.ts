import { expect } from 'vitest';
import { session, type TestUser } from './factories.js';
import type { Client } from './http.js';
import { readSseFrames } from './sse.js';

/** A thread record as a frame's data carries it. */
export interface ThreadFrame {
  sequence: number;
  id: string;
  createdAt: string;
  type: string;
  through?: number;
  [field: string]: unknown;
}

export interface ThreadStreamReader {
  status: number;
  headers: Headers;
  /** Every data frame received so far, in order (records, and a chat's first `thread` frame). */
  frames: ThreadFrame[];
  /** The `id:` line of each frame that has one, in order. */
  ids: string[];
  /** Comment lines received, by text (`heartbeat`, `connected`). */
  comments: string[];
  /** Settles when the stream is over: ended by the server, closed, or cut off. */
  ended: Promise<void>;
  /** Settles once a data frame matching `test` has arrived. */
  waitFor(test: (frame: ThreadFrame) => boolean): Promise<ThreadFrame>;
  /** Settles once `count` comments have arrived. */
  waitForComments(count: number): Promise<void>;
  close(): void;
  body: string;
}

/** POSTs and reads the answer as server-sent events, frame by frame as they arrive. */
export async function postStream(url: string, body: unknown, headers: Record<string, string>): Promise<ThreadStreamReader> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const reader: ThreadStreamReader = {
    status: response.status,
    headers: response.headers,
    frames: [],
    ids: [],
    comments: [],
    ended: Promise.resolve(),
    waitFor: () => Promise.reject(new Error('not a stream')),
    waitForComments: () => Promise.reject(new Error('not a stream')),
    close: () => controller.abort(),
    body: '',
  };
  if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    reader.body = await response.text();
    return reader;
  }
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const until = <T>(check: () => T | undefined) =>
    new Promise<T>((resolve, reject) => {
      const waiter = () => {
        const found = check();
        if (found !== undefined) {
          waiters.delete(waiter);
          resolve(found);
        }
      };
      waiters.add(waiter);
      waiter();
      reader.ended.then(() => {
        if (waiters.delete(waiter)) reject(new Error('The stream ended first'));
      });
    });
  reader.waitFor = (test) => until(() => reader.frames.find(test));
  reader.waitForComments = (count) => until(() => (reader.comments.length >= count ? true : undefined)).then(() => undefined);
  reader.ended = (async () => {
    try {
      await readSseFrames(
        response.body as AsyncIterable<Uint8Array>,
        ({ comment, id, data }) => {
          if (comment !== undefined) reader.comments.push(comment);
          if (id !== undefined) reader.ids.push(id);
          if (data !== undefined) reader.frames.push(JSON.parse(data) as ThreadFrame);
        },
        notify,
      );
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    }
  })();
  // A stream that ends rejects the waits still open (above) rather than leave a test hanging.
  reader.ended = reader.ended.finally(notify);
  return reader;
}

export const recordsOf = (reader: ThreadStreamReader) => reader.frames.filter((frame) => frame.type !== 'thread');
export const typesOf = (reader: ThreadStreamReader) => recordsOf(reader).map((frame) => frame.type);

/** Opens a subscription to `threadId` of the caller's workspace. */
export function subscribe(
  baseUrl: string,
  user: TestUser,
  agentId: string,
  threadId: string,
  extra: { headers?: Record<string, string>; resourceId?: string } = {},
) {
  return postStream(
    `${baseUrl}/api/v1/agents/${agentId}/subscribe-thread`,
    { resourceId: extra.resourceId ?? user.user.personalWorkspaceId, threadId },
    { ...session(user), ...extra.headers },
  );
}

/** Sends a message into the thread and expects it taken (202). */
export async function sendToThread(api: Client, user: TestUser, agentId: string, threadId: string, message: string) {
  const reply = await api.post<{ messageId: string; threadId: string }>(`/api/v1/agents/${agentId}/send-message`, {
    body: { resourceId: user.user.personalWorkspaceId, threadId, message },
    headers: session(user),
  });
  expect(reply.status).toBe(202);
  return reply.body;
}

export function chat(baseUrl: string, user: TestUser, agentId: string, body: { threadId?: string; message: string }) {
  return postStream(`${baseUrl}/api/v1/chat/${agentId}`, body, session(user));
}

/**
 * Answers an approval of the assistant's thread as `user`; returns the answer as it came.
 * `approvalId` as a stream frame carries it (frames are untyped).
 */
export function answerApproval(api: Client, user: TestUser, threadId: string, approvalId: unknown, approved: boolean) {
  return api.post(`/api/v1/agents/assistant/threads/${threadId}/approvals/${String(approvalId)}`, {
    body: { approved },
    headers: session(user),
  });
}
