import { executionEvents, type StreamOptions } from './event-stream.js';
import { type RunOptions, runBody, runHeaders } from './run-request.js';
import { chatReply, type ThreadStreamOptions, threadRecords } from './thread-stream.js';
import type { ApprovalDecision, ThreadAgent, ThreadSummary } from './thread-types.js';
import { type ClientOptions, Transport } from './transport.js';
import type {
  Activation,
  ActivationDetails,
  ApiKey,
  Artifact,
  Balance,
  ByokStatus,
  CancelResult,
  Checkout,
  CheckoutStarted,
  CreatedApiKey,
  CreatedExecution,
  CreatedWebhookEndpoint,
  CreditPack,
  EventTimes,
  ExecutionEvent,
  ExecutionStatus,
  HistoryPage,
  InputFile,
  InstalledSkill,
  Manifest,
  Me,
  NewWebhookEndpoint,
  Page,
  PollResult,
  PublishableKey,
  Published,
  RerunResult,
  RunResult,
  SignedIn,
  SkillFolderFile,
  SkillItem,
  StreamToken,
  SubscribeUrl,
  SubscriptionModes,
  SubscriptionStatus,
  TierInfo,
  Transaction,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookSecret,
} from './types.js';

const id = (value: string) => encodeURIComponent(value);
const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
};

/**
 * A typed client for the Skillet HTTP API. It uses the platform's fetch and nothing from
 * the server. Failures throw SkilletError; rate limits are waited out a few times first.
 */
export class SkilletClient {
  readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  readonly auth = {
    signup: (email: string, password: string) =>
      this.transport.json<SignedIn>('POST', '/api/v1/auth/signup', { email, password }),
    login: (email: string, password: string) => this.transport.json<SignedIn>('POST', '/api/v1/auth/login', { email, password }),
    logout: () => this.transport.json<{ success: boolean }>('POST', '/api/v1/auth/logout', {}),
    me: () => this.transport.json<Me>('GET', '/api/v1/me'),
  };

  readonly keys = {
    create: (label: string) => this.transport.json<CreatedApiKey>('POST', '/api/v1/keys', { label }),
    list: () => this.transport.json<{ keys: ApiKey[] }>('GET', '/api/v1/keys'),
    revoke: (keyId: string) => this.transport.json<{ success: boolean }>('DELETE', `/api/v1/keys/${id(keyId)}`),
  };

  readonly workspaces = {
    list: () => this.transport.json<{ workspaces: Record<string, unknown>[] }>('GET', '/api/v1/workspaces'),
    create: (name: string) => this.transport.json<Record<string, unknown>>('POST', '/api/v1/workspaces', { name }),
    addMember: (workspaceId: string, email: string, role: string) =>
      this.transport.json<Record<string, unknown>>('POST', `/api/v1/workspaces/${id(workspaceId)}/members`, { email, role }),
    switchTo: (workspaceId: string) =>
      this.transport.json<Record<string, unknown>>('PUT', '/api/v1/workspaces/current', { workspaceId }),
  };

  readonly activation = {
    start: (clientLabel?: string) =>
      this.transport.json<Activation>('POST', '/api/v1/activate', clientLabel === undefined ? {} : { client_label: clientLabel }),
    poll: (deviceCode: string) => this.transport.json<PollResult>('POST', '/api/v1/activate/poll', { device_code: deviceCode }),
    lookup: (code: string) => this.transport.json<ActivationDetails>('GET', `/api/v1/activate/lookup${query({ code })}`),
    confirm: (code: string) => this.transport.json<Record<string, unknown>>('POST', '/api/v1/activate/confirm', { code }),
    deny: (code: string) => this.transport.json<Record<string, unknown>>('POST', '/api/v1/activate/deny', { code }),
  };

  readonly skills = {
    list: (page: { limit?: number; offset?: number } = {}) =>
      this.transport.json<Page<SkillItem>>('GET', `/api/v1/marketplace/skills${query(page)}`),
    /**
     * Installs a skill from a folder's files into the workspace; it then runs by its slug:
     * `slug` when given, else the one its SKILL.md names, else the folder's name.
     */
    install: (folderName: string, files: SkillFolderFile[], options: { slug?: string } = {}) =>
      this.transport.json<InstalledSkill>('POST', '/api/v1/skills', { folderName, files, ...options }),
    /** One skill the workspace can run, the server's or its own; 404 for a slug it does not have. */
    get: (slug: string) => this.transport.json<SkillItem>('GET', `/api/v1/skills/${id(slug)}`),
    /** Installs a new version of a skill installed into the workspace over it, keeping its slug. */
    update: (slug: string, folderName: string, files: SkillFolderFile[]) =>
      this.transport.json<InstalledSkill>('PUT', `/api/v1/skills/${id(slug)}`, { folderName, files }),
    /** Removes a skill installed into the workspace; past runs keep their history and artifacts. */
    remove: (slug: string) => this.transport.json<{ success: true }>('DELETE', `/api/v1/skills/${id(slug)}`),
  };

  readonly executions = {
    /** Creates an idle execution: open its stream, then send() its input to start it. */
    create: (skillSlug: string, input: string, options: RunOptions = {}) =>
      this.transport.json<CreatedExecution>(
        'POST',
        '/api/v1/executions',
        runBody(skillSlug, input, options),
        runHeaders(options),
      ),
    /**
     * Creates and starts a run in one call, the input sent once. `wait`: true holds the call
     * until the run ends, for up to the server's longest wait (60 seconds), a number for at
     * most that many seconds. The answer's status says whether it ended; follow one that
     * has not with events(executionId), or read its page at webUrl.
     */
    run: (skillSlug: string, input: string, options: RunOptions & { wait?: boolean | number } = {}) =>
      this.transport.json<RunResult>('POST', '/api/v1/runs', runBody(skillSlug, input, options), runHeaders(options)),
    send: (executionId: string, text: string) =>
      this.transport.json<{ data: ExecutionEvent[] }>('POST', `/api/v1/executions/${id(executionId)}/events`, {
        events: [{ type: 'user.message', content: [{ type: 'text', text }] }],
      }),
    interrupt: (executionId: string) =>
      this.transport.json<{ data: ExecutionEvent[] }>('POST', `/api/v1/executions/${id(executionId)}/events`, {
        events: [{ type: 'user.interrupt' }],
      }),
    status: (executionId: string) => this.transport.json<ExecutionStatus>('GET', `/api/v1/executions/${id(executionId)}/status`),
    eventTimes: (executionId: string, after = 0) =>
      this.transport.json<EventTimes>('GET', `/api/v1/executions/${id(executionId)}/event-times?after=${after}`),
    history: (filter: { limit?: number; offset?: number; channels?: string; interfaces?: string; statuses?: string } = {}) =>
      this.transport.json<HistoryPage>('GET', `/api/v1/executions${query(filter)}`),
    cancel: (executionId: string) =>
      this.transport.json<CancelResult>('POST', `/api/v1/executions/${id(executionId)}/cancel`, {}),
    rerun: (executionId: string, input: string) =>
      this.transport.json<RerunResult>('POST', `/api/v1/executions/${id(executionId)}/rerun`, { input }),
    streamUrl: (executionId: string) =>
      this.transport.json<StreamToken>('GET', `/api/v1/executions/${id(executionId)}/stream-token`),
    /** Every event of the execution once, in order, across dropped connections. */
    events: (executionId: string, options?: StreamOptions) => executionEvents(this.transport, executionId, options),
  };

  readonly artifacts = {
    list: () => this.transport.json<Artifact[]>('GET', '/api/v1/artifacts'),
    page: (page: { limit?: number; offset?: number }) =>
      this.transport.json<Page<Artifact>>('GET', `/api/v1/artifacts${query({ limit: 20, ...page })}`),
    get: (artifactId: string) => this.transport.json<Artifact>('GET', `/api/v1/artifacts/${id(artifactId)}`),
    manifest: (artifactId: string) => this.transport.json<Manifest>('GET', `/api/v1/artifacts/${id(artifactId)}/manifest`),
    /** The download as a response to stream: the file, or a ZIP for a bundle. */
    download: (artifactId: string) => this.transport.send('GET', `/api/v1/artifacts/${id(artifactId)}/download`),
    raw: async (artifactId: string) => (await this.transport.send('GET', `/api/v1/artifacts/${id(artifactId)}/raw`)).text(),
    file: (artifactId: string, path: string) =>
      this.transport.send('GET', `/api/v1/artifacts/${id(artifactId)}/file/${path.split('/').map(encodeURIComponent).join('/')}`),
    remove: (artifactId: string) => this.transport.json<{ success: boolean }>('DELETE', `/api/v1/artifacts/${id(artifactId)}`),
    publish: (artifactId: string) => this.transport.json<Published>('POST', `/api/v1/artifacts/${id(artifactId)}/publish`, {}),
    unpublish: (artifactId: string) =>
      this.transport.json<{ success: boolean }>('POST', `/api/v1/artifacts/${id(artifactId)}/unpublish`, {}),
    install: (artifactId: string) => this.transport.json<Artifact>('POST', `/api/v1/artifacts/${id(artifactId)}/install`, {}),
  };

  readonly files = {
    /**
     * Stores a file for runs: the bytes streamed as the body, named by x-filename
     * (percent-encoded, so any name survives a header).
     */
    upload: (filename: string, body: ReadableStream<Uint8Array> | Blob, contentType = 'application/octet-stream') =>
      this.transport.stream<InputFile>('/api/v1/files', body, {
        'x-filename': encodeURIComponent(filename),
        'content-type': contentType,
      }),
    list: (page: { limit?: number; offset?: number } = {}) =>
      this.transport.json<Page<InputFile>>('GET', `/api/v1/files${query(page)}`),
    get: (fileId: string) => this.transport.json<InputFile>('GET', `/api/v1/files/${id(fileId)}`),
    /** The file's bytes as a response to stream. */
    content: (fileId: string) => this.transport.send('GET', `/api/v1/files/${id(fileId)}/content`),
    remove: (fileId: string) => this.transport.json<{ success: boolean }>('DELETE', `/api/v1/files/${id(fileId)}`),
  };

  readonly billing = {
    balance: () => this.transport.json<Balance>('GET', '/api/v1/billing/balance'),
    packs: () => this.transport.json<{ packs: CreditPack[] }>('GET', '/api/v1/billing/packs'),
    purchase: (packId: string, checkout: Checkout) =>
      this.transport.json<CheckoutStarted>('POST', '/api/v1/billing/purchase', { packId, ...checkout }),
    subscribe: (checkout: Checkout) => this.transport.json<CheckoutStarted>('POST', '/api/v1/billing/subscribe', checkout),
    transactions: () => this.transport.json<{ transactions: Transaction[] }>('GET', '/api/v1/billing/transactions'),
    tier: () => this.transport.json<TierInfo>('GET', '/api/v1/billing/subscription/tier'),
    modes: () => this.transport.json<SubscriptionModes>('GET', '/api/v1/billing/subscription/info'),
    subscription: () => this.transport.json<SubscriptionStatus>('GET', '/api/v1/billing/subscription'),
    cancelSubscription: () => this.transport.json<SubscriptionStatus>('POST', '/api/v1/billing/subscription/cancel'),
    publishableKey: () => this.transport.json<PublishableKey>('GET', '/api/v1/billing/publishable-key'),
    byok: () => this.transport.json<ByokStatus>('GET', '/api/v1/byok'),
    setByok: (key: string) => this.transport.json<ByokStatus>('PUT', '/api/v1/byok', { key }),
    removeByok: () => this.transport.json<ByokStatus>('DELETE', '/api/v1/byok'),
  };

  readonly webhooks = {
    create: (endpoint: NewWebhookEndpoint) => this.transport.json<CreatedWebhookEndpoint>('POST', '/api/v1/webhooks', endpoint),
    list: () => this.transport.json<{ webhooks: WebhookEndpoint[] }>('GET', '/api/v1/webhooks'),
    get: (endpointId: string) => this.transport.json<WebhookEndpoint>('GET', `/api/v1/webhooks/${id(endpointId)}`),
    update: (endpointId: string, change: WebhookEndpointChange) =>
      this.transport.json<WebhookEndpoint>('PATCH', `/api/v1/webhooks/${id(endpointId)}`, change),
    remove: (endpointId: string) => this.transport.json<{ success: boolean }>('DELETE', `/api/v1/webhooks/${id(endpointId)}`),
    /** A new signing secret, shown only in this answer. */
    rotateSecret: (endpointId: string) =>
      this.transport.json<WebhookSecret>('POST', `/api/v1/webhooks/${id(endpointId)}/secret`, {}),
    sendTest: (endpointId: string) => this.transport.json<WebhookDelivery>('POST', `/api/v1/webhooks/${id(endpointId)}/test`, {}),
    deliveries: (endpointId: string, filter: { limit?: number; offset?: number; status?: WebhookDeliveryStatus } = {}) =>
      this.transport.json<Page<WebhookDelivery>>('GET', `/api/v1/webhooks/${id(endpointId)}/deliveries${query(filter)}`),
    delivery: (endpointId: string, deliveryId: string) =>
      this.transport.json<WebhookDeliveryDetail>('GET', `/api/v1/webhooks/${id(endpointId)}/deliveries/${id(deliveryId)}`),
    /** Sends the delivery's message again under its own id, as a new delivery. */
    redeliver: (endpointId: string, deliveryId: string) =>
      this.transport.json<WebhookDelivery>(
        'POST',
        `/api/v1/webhooks/${id(endpointId)}/deliveries/${id(deliveryId)}/redeliver`,
        {},
      ),
  };

  /** Conversations with the workspace's agents (the assistant and agent skills). */
  readonly threads = {
    agents: () => this.transport.json<{ agents: ThreadAgent[] }>('GET', '/api/v1/agents'),
    list: (agentId: string, page: { limit?: number; offset?: number } = {}) =>
      this.transport.json<Page<ThreadSummary>>('GET', `/api/v1/agents/${id(agentId)}/threads${query(page)}`),
    /** Posts a message; the reply comes on the thread's records (`records`). */
    send: (agentId: string, thread: { resourceId: string; threadId: string }, message: string) =>
      this.transport.json<{ messageId: string; threadId: string }>('POST', `/api/v1/agents/${id(agentId)}/send-message`, {
        ...thread,
        message,
      }),
    records: (agentId: string, thread: { resourceId: string; threadId: string }, options?: ThreadStreamOptions) =>
      threadRecords(this.transport, agentId, thread, options),
    chat: (agentId: string, message: string, options?: { threadId?: string; signal?: AbortSignal }) =>
      chatReply(this.transport, agentId, message, options),
    answer: (agentId: string, threadId: string, approvalId: string, approved: boolean) =>
      this.transport.json<ApprovalDecision>(
        'POST',
        `/api/v1/agents/${id(agentId)}/threads/${id(threadId)}/approvals/${id(approvalId)}`,
        { approved },
      ),
  };

  readonly events = {
    subscribeUrl: () => this.transport.json<SubscribeUrl>('GET', '/api/v1/events/subscribe-url'),
  };
}
