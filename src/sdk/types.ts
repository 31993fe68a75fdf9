/** The shapes the service answers with (see the interface specification). */

export type WorkspaceRole = 'owner' | 'admin' | 'member';

/** How the caller signed in: an app session, an API key, or an OAuth access token. */
export type CredentialType = 'session' | 'api_key' | 'oauth';

export interface Me {
  user: { id: string; email: string; isAdmin: boolean; personalWorkspaceId: string; createdAt: string };
  workspace: { id: string; name: string | null; personal: boolean; role: WorkspaceRole };
  credential: { type: CredentialType; id: string };
  tier: string;
}

export interface Activation {
  device_code: string;
  user_code: string;
  verification_url: string;
  verification_url_complete: string;
  app_download_url: string;
  expires_in: number;
  interval: number;
}

/** A device's sign-in request as the person approving it sees it. */
export type ActivationStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export interface ActivationDetails {
  user_code: string;
  client_label: string;
  client_ua: string;
  client_ip: string;
  status: ActivationStatus;
  expires_at: string;
}

/** How recently a key was used: the connected agent's heartbeat. */
export type KeyHeartbeat = 'ACTIVE' | 'IDLE' | 'DORMANT';

export interface ApiKey {
  id: string;
  label: string;
  keyPreview: string;
  workspaceId: string;
  createdAt: string;
  lastUsedAt: string | null;
  heartbeat: KeyHeartbeat;
}

/** A new key with its plaintext, which the server returns this once. */
export interface CreatedApiKey {
  id: string;
  key: string;
  label: string;
  keyPreview: string;
  workspaceId: string;
  createdAt: string;
}

export type PollResult =
  | { status: 'approved'; api_key: string; tier: string; workspace: { id: string; name: string | null } }
  | { status: 'pending' | 'denied' | 'expired' | 'consumed' };

export interface SkillItem {
  slug: string;
  name: string;
  description: string;
  runtime: string;
  price: number;
  installed: boolean;
  /** `server`: one of the server's skills, every workspace's; `workspace`: installed into yours, which its owners and admins may update and remove. */
  source: 'server' | 'workspace';
  /** What a run expects, in a sentence. */
  input: string;
  /** What a run given no input works on; null when the skill needs input. */
  defaultInput: string | null;
  /** Inputs worth trying; a form starts with the first. */
  examples: string[];
  /** What an input must be (runs on anything else are refused); null when any text goes. */
  inputSchema: InputSchema | null;
  /** Whether a run may be given files; a run of a skill that does not read them is refused with them. */
  takesFiles: boolean;
  /** An agent skill's model calls, charged on top of its price; null for a skill that calls no model. */
  modelUse: ModelUse | null;
}

/** What an agent skill's model calls cost: an estimate for a typical run. */
export interface ModelUse {
  /** The model a run on the server's key calls. */
  model: string;
  /** Whole Ds a typical run's model calls cost at the server's prices: an estimate. */
  aboutDs: number;
  /** You have your own model key: your runs' model calls cost 0 Ds. */
  ownKey: boolean;
}

export type InputFieldType = 'string' | 'integer' | 'number' | 'boolean';

/** The rules of one input field, or of a text input. */
export interface InputFieldRules {
  title?: string;
  description?: string;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export interface InputField extends InputFieldRules {
  type: InputFieldType;
}

/** A text input with rules (`type` a field type), or a JSON object of fields (`object`). */
export interface InputSchema extends InputFieldRules {
  type: InputFieldType | 'object';
  properties?: Record<string, InputField>;
  required?: string[];
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/** Where an execution stands; a new one is idle until its first user message. */
export type ExecutionState = 'idle' | 'working' | 'completed' | 'failed';

export interface CreatedExecution {
  id: string;
  skill_slug: string;
  skill_name: string;
  status: ExecutionState;
}

export interface ExecutionEvent {
  id: string;
  type: string;
  sequence: number;
  payload: Record<string, unknown>;
}

/** One row of the execution history. */
export interface HistoryItem {
  id: number;
  executionId: string;
  skillSlug: string;
  skillName: string;
  status: ExecutionState;
  cost: number;
  source: string;
  interface: string;
  inputText: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface ExecutionStatus {
  executionId: string;
  status: ExecutionState;
  skillSlug: string;
  skillName: string;
  startedAt: string | null;
  outputBlocks: { type: string; text: string }[];
}

/**
 * A run created and started in one call (POST /runs), and where it stands: over (when the
 * call waited long enough) or still working, with where to follow it.
 */
export interface RunResult {
  executionId: string;
  skillSlug: string;
  skillName: string;
  status: ExecutionState;
  stopReason: 'end_turn' | 'interrupt' | 'limit_reached' | 'error' | null;
  cost: number;
  inputText: string;
  startedAt: string | null;
  completedAt: string | null;
  /** The text of its agent messages so far, joined by newlines. */
  output: string;
  artifacts: Omit<Artifact, 'fileList' | 'content'>[];
  /** Its event stream, signed and short-lived; add `&lastSeq=<n>` to skip what you have. */
  sseUrl: string;
  statusUrl: string;
  /** The run's page in the web app. */
  webUrl: string;
}

/** A skill installed from a folder: its slug (what runs take), name, and how many files it has. */
export interface InstalledSkill {
  slug: string;
  name: string;
  description: string;
  runtime: 'script' | 'agent';
  files: number;
}

/** One file of a skill folder to install: its path inside the folder and its bytes in base64. */
export interface SkillFolderFile {
  path: string;
  content: string;
}

/** When each event of a run was recorded, by sequence; a page of them. */
export interface EventTimes {
  times: { sequence: number; at: string }[];
  hasMore: boolean;
}

export interface Artifact {
  id: string;
  skillSlug: string;
  skillName: string;
  title: string;
  fileType: string;
  artifactType: string;
  inputText: string;
  contentSize: number;
  createdSkillSlug: string | null;
  metadata: Record<string, unknown> | null;
  isInstalled: boolean;
  bundleType: string | null;
  status: string;
  cost: number;
  executionTimeMs: number;
  createdAt: string;
  isPublic: boolean;
  fileList?: { path: string; size: number }[];
  content?: string;
}

/** A file uploaded for runs (DESIGN §15); it expires unless a run is given it. */
export interface InputFile {
  id: string;
  filename: string;
  size: number;
  mimeType: string;
  /** Plain lowercase hex. */
  sha256: string;
  createdAt: string;
  /** Null once a run was given the file. */
  expiresAt: string | null;
}

/** What a run may be given: an uploaded file, or every file of an artifact. */
export type RunFileRef = { fileId: string } | { artifactId: string };

export interface Manifest {
  version: string;
  bundleType: string;
  files: { path: string; checksum: string; size: number; mimeType: string }[];
  createdAt: string;
}

export interface Balance {
  balance: number;
  totalSpent: number;
  canExecute: boolean;
  isAdmin: boolean;
}

export interface CreditPack {
  id: string;
  name: string;
  credits: number;
  priceCents: number;
}

export interface Transaction {
  id: number;
  userId: string;
  amount: number;
  type: string;
  description: string;
  executionId: string | null;
  paymentSessionId: string | null;
  createdAt: string;
}

export interface SubscriptionInfo {
  name: string;
  priceCents: number;
  priceDisplay: string;
  monthlyCredits: number;
  packDiscount: number;
}

/** A person's Based subscription: on or not, renewing or not, and until when it is paid. */
export interface SubscriptionStatus {
  subscribed: boolean;
  renews: boolean;
  paidUntil: string | null;
}

export interface ByokStatus {
  hasKey: boolean;
  keyPreview: string | null;
  provider?: string | null;
}

/** What an outbound webhook endpoint can subscribe to. */
export type WebhookEventType = 'execution.completed' | 'execution.failed' | 'artifact.created' | 'credits.granted';

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The answer to creating an endpoint: the only time its signing secret is shown, besides a rotation. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One message sent to one endpoint, with where its attempts stand. */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  /** The webhook-id header; a redelivery keeps it, so receivers can tell a repeat. */
  messageId: string;
  /** One of the subscribed types, or `webhook.test`. */
  eventType: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
}

export interface WebhookAttempt {
  number: number;
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  attemptLog: WebhookAttempt[];
}
