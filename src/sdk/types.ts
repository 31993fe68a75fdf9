/**
 * The shapes the service answers with, each the `Static<>` of the schema its route answers
 * with (schemas/): one source, so the SDK cannot drift from the server.
 */
import type { Static } from 'typebox';
import type { ActivationDetailsSchema, ActivationStatusSchema, CreatedActivation, PollResponse } from './schemas/activation.js';
import type {
  ArtifactDetail,
  ArtifactListItem,
  ArtifactSchema,
  ManifestSchema,
  Published as PublishedSchema,
} from './schemas/artifacts.js';
import type {
  BalanceSchema,
  ByokStatusSchema,
  CheckoutBody,
  CheckoutCreated,
  CreditPackSchema,
  Modes,
  PublishableKey as PublishableKeySchema,
  SubscriptionInfoSchema,
  SubscriptionStatusSchema,
  Tier as TierSchema,
  TransactionSchema,
} from './schemas/billing.js';
import type { PageFieldsSchema, WorkspaceRoleSchema } from './schemas/common.js';
import type {
  CancelResponse,
  CreatedExecution as CreatedExecutionSchema,
  EventTimesResponse,
  ExecutionEventSchema,
  ExecutionStateSchema,
  HistoryItemSchema,
  HistoryResponse,
  RerunResponse,
  RunAnswer,
  RunFileRefSchema,
  StatusResponse,
  StreamTokenResponse,
  SubscribeUrl as SubscribeUrlSchema,
} from './schemas/executions.js';
import type { FileSchema } from './schemas/files.js';
import type { CreatedKey, CredentialTypeSchema, KeySchema, MeSchema, SignedInSchema } from './schemas/identity.js';
import type {
  InputFieldSchema,
  InputFieldTypeSchema,
  InputSchemaSchema,
  InstalledSkillSchema,
  ModelUseSchema,
  SkillFolderFileSchema,
  SkillItemSchema,
} from './schemas/skills.js';
import type {
  CreatedWebhookEndpointSchema,
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookAttemptSchema,
  WebhookDeliveryDetailSchema,
  WebhookDeliverySchema,
  WebhookDeliveryStatusSchema,
  WebhookEndpointSchema,
  WebhookEventTypeSchema,
  WebhookSecret as WebhookSecretSchema,
} from './schemas/webhooks.js';

/** An intersection written out as one object, as an editor shows it. */
type Flat<T> = { [K in keyof T]: T[K] };

export type WorkspaceRole = Static<typeof WorkspaceRoleSchema>;
export type CredentialType = Static<typeof CredentialTypeSchema>;
export type Me = Static<typeof MeSchema>;
export type SignedIn = Static<typeof SignedInSchema>;

export type Activation = Static<typeof CreatedActivation>;
export type ActivationStatus = Static<typeof ActivationStatusSchema>;
export type ActivationDetails = Static<typeof ActivationDetailsSchema>;

type PollAnswer = Static<typeof PollResponse>;
/** The poll's answer, narrowed: the key, tier and workspace come with `approved` and only then. */
export type PollResult =
  | ({ status: 'approved' } & Required<Omit<PollAnswer, 'status'>>)
  | { status: Exclude<PollAnswer['status'], 'approved'> };

export type ApiKey = Static<typeof KeySchema>;
export type KeyHeartbeat = ApiKey['heartbeat'];
export type CreatedApiKey = Static<typeof CreatedKey>;

export type SkillItem = Static<typeof SkillItemSchema>;
export type ModelUse = Static<typeof ModelUseSchema>;
export type InputFieldType = Static<typeof InputFieldTypeSchema>;
export type InputField = Static<typeof InputFieldSchema>;
export type InputSchema = Static<typeof InputSchemaSchema>;
export type InstalledSkill = Static<typeof InstalledSkillSchema>;
export type SkillFolderFile = Static<typeof SkillFolderFileSchema>;

/** A page of a list: its items and where the page sits. */
export type Page<T> = Flat<{ items: T[] } & Static<typeof PageFieldsSchema>>;

export type ExecutionState = Static<typeof ExecutionStateSchema>;
export type CreatedExecution = Static<typeof CreatedExecutionSchema>;
export type ExecutionEvent = Static<typeof ExecutionEventSchema>;
export type HistoryItem = Static<typeof HistoryItemSchema>;
export type ExecutionStatus = Static<typeof StatusResponse>;
export type CancelResult = Static<typeof CancelResponse>;
export type RerunResult = Static<typeof RerunResponse>;
export type RunResult = Static<typeof RunAnswer>;
export type EventTimes = Static<typeof EventTimesResponse>;
export type HistoryPage = Static<typeof HistoryResponse>;
export type StreamToken = Static<typeof StreamTokenResponse>;
export type SubscribeUrl = Static<typeof SubscribeUrlSchema>;
export type RunFileRef = Static<typeof RunFileRefSchema>;

/**
 * One type for the three artifact answers: a list item carries `fileList`, the detail
 * `content`, an install or a run's answer neither.
 */
export type Artifact = Flat<
  Static<typeof ArtifactSchema> &
    Partial<Pick<Static<typeof ArtifactListItem>, 'fileList'> & Pick<Static<typeof ArtifactDetail>, 'content'>>
>;
/** An artifact as the list gives it: with its files' paths and sizes. */
export type ArtifactWithFiles = Static<typeof ArtifactListItem>;
/** An artifact as its own page gives it: with its main file's text (the first megabyte), empty for binary files. */
export type ArtifactWithContent = Static<typeof ArtifactDetail>;
export type Manifest = Static<typeof ManifestSchema>;
/** One entry of a bundle's manifest. */
export type ManifestFile = Manifest['files'][number];
export type Published = Static<typeof PublishedSchema>;

export type InputFile = Static<typeof FileSchema>;

export type Balance = Static<typeof BalanceSchema>;
export type CreditPack = Static<typeof CreditPackSchema>;
export type Transaction = Static<typeof TransactionSchema>;
export type SubscriptionInfo = Static<typeof SubscriptionInfoSchema>;
export type SubscriptionStatus = Static<typeof SubscriptionStatusSchema>;
/** Where the receipt goes, and where the hosted checkout sends the browser back to. */
export type Checkout = Static<typeof CheckoutBody>;
export type CheckoutStarted = Static<typeof CheckoutCreated>;
export type TierInfo = Static<typeof TierSchema>;
export type SubscriptionModes = Static<typeof Modes>;
export type PublishableKey = Static<typeof PublishableKeySchema>;
type ByokAnswer = Static<typeof ByokStatusSchema>;
/** Whether a model key is kept; `provider` is left out of the answer to removing it. */
export type ByokStatus = Flat<Omit<ByokAnswer, 'provider'> & Partial<Pick<ByokAnswer, 'provider'>>>;

export type WebhookEventType = Static<typeof WebhookEventTypeSchema>;
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;
export type CreatedWebhookEndpoint = Static<typeof CreatedWebhookEndpointSchema>;
export type NewWebhookEndpoint = Static<typeof CreateWebhookBody>;
export type WebhookEndpointChange = Static<typeof UpdateWebhookBody>;
export type WebhookSecret = Static<typeof WebhookSecretSchema>;
export type WebhookDeliveryStatus = Static<typeof WebhookDeliveryStatusSchema>;
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
export type WebhookAttempt = Static<typeof WebhookAttemptSchema>;
export type WebhookDeliveryDetail = Static<typeof WebhookDeliveryDetailSchema>;
