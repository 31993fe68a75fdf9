import type { ThreadStreamOptions } from '../../../src/sdk/thread-stream';
import { threadRecords } from '../../../src/sdk/thread-stream';
import type { ApprovalDecision, ThreadRecord, ThreadSummary } from '../../../src/sdk/thread-types';
import { Transport } from '../../../src/sdk/transport';
import type { Page } from '../../../src/sdk/types';
import { get, post } from '../api';

/** The assistant: the one agent the app talks to (agent skills run from their own screens). */
export const ASSISTANT = 'assistant';

const base = `/api/v1/agents/${ASSISTANT}`;

export const listThreads = (offset: number, limit: number) =>
  get<Page<ThreadSummary>>(`${base}/threads?limit=${limit}&offset=${offset}`);

export const sendToThread = (resourceId: string, threadId: string, message: string) =>
  post<{ messageId: string; threadId: string }>(`${base}/send-message`, { resourceId, threadId, message });

export const answerApproval = (threadId: string, approvalId: string, approved: boolean) =>
  post<ApprovalDecision>(`${base}/threads/${encodeURIComponent(threadId)}/approvals/${encodeURIComponent(approvalId)}`, {
    approved,
  });

/**
 * The SDK's reconnecting thread stream, sent as the app's own requests: with the session
 * cookie and the header that says they come from the app.
 */
const appTransport = new Transport({
  baseUrl: window.location.origin,
  maxRetries: 0,
  fetch: (input, init) =>
    fetch(input, {
      ...init,
      credentials: 'same-origin',
      headers: { ...(init?.headers as Record<string, string>), 'x-skillet-app': '1' },
    }),
});

export const followThread = (resourceId: string, threadId: string, options: ThreadStreamOptions): AsyncGenerator<ThreadRecord> =>
  threadRecords(appTransport, ASSISTANT, { resourceId, threadId }, options);
