import type {
  CancelResult,
  EventTimes,
  ExecutionStatus,
  HistoryItem,
  HistoryPage,
  RerunResult,
  RunResult,
  StreamToken,
} from '../../../src/sdk/types';
import { get, post } from '../api';

/** A page of the history and its filters: comma-separated lists, empty for no filter. */
export interface HistoryQuery {
  limit: number;
  offset: number;
  channels: string;
  interfaces: string;
}

const executionPath = (id: string) => `/api/v1/executions/${encodeURIComponent(id)}`;

/**
 * Creates and starts a run of the skill in one call, the input sent once; the run's page
 * then replays its stream from the first event, so nothing it did is missed.
 */
export const startRun = (skillSlug: string, input: string, fileIds: string[] = []) =>
  post<RunResult>('/api/v1/runs', {
    skill_slug: skillSlug,
    input,
    source: 'app',
    ...(fileIds.length > 0 ? { files: fileIds.map((fileId) => ({ fileId })) } : {}),
  });

export const executionStatus = (id: string) => get<ExecutionStatus>(`${executionPath(id)}/status`);

/** When each stored event after `after` was recorded: a page of them. */
export const eventTimes = (id: string, after: number) => get<EventTimes>(`${executionPath(id)}/event-times?after=${after}`);

/** A signed URL for the execution's event stream; it is the credential, and it expires. */
export const streamUrl = async (id: string): Promise<string> =>
  (await get<StreamToken>(`${executionPath(id)}/stream-token`)).sseUrl;

/** The user.message that starts an idle execution's run (its first, or a resume). */
export const sendMessage = (id: string, text: string): Promise<unknown> =>
  post(`${executionPath(id)}/events`, { events: [{ type: 'user.message', content: [{ type: 'text', text }] }] });

export const interruptExecution = (id: string) => post(`${executionPath(id)}/events`, { events: [{ type: 'user.interrupt' }] });

export const cancelExecution = (id: string) => post<CancelResult>(`${executionPath(id)}/cancel`);

export const rerunExecution = (id: string, input: string) => post<RerunResult>(`${executionPath(id)}/rerun`, { input });

/** The run going in the workspace, if any: one at a time may (SPEC), so a new one waits for it. */
export async function runningExecution(): Promise<HistoryItem | undefined> {
  const page = await get<HistoryPage>('/api/v1/executions?statuses=working&limit=1');
  return page.items[0];
}

export function listExecutions(page: HistoryQuery): Promise<HistoryPage> {
  const query = new URLSearchParams({ limit: String(page.limit), offset: String(page.offset) });
  if (page.channels) query.set('channels', page.channels);
  if (page.interfaces) query.set('interfaces', page.interfaces);
  return get<HistoryPage>(`/api/v1/executions?${query}`);
}
