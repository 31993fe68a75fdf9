/**
 * The SDK's wire types against the route schemas, compared at type level (`tsc -p tsconfig.json`
 * covers test/, so a drift fails the project's typecheck; vitest only runs the import check).
 *
 * Choice: src/sdk/types.ts stays hand-written and is pinned here, rather than derived with
 * `Static<typeof Schema>`. The web app and outside clients type-import src/sdk/types.ts; deriving
 * would put the server's schema files in their type programs, and one of them (auth.schemas.ts,
 * for Me) reaches identity/users.ts and through it some forty server modules (database, config,
 * secrets) and @types/node. Hand-written types also read as plain fields in an editor. The
 * schemas stay the one source: these checks make the SDK follow them.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Static } from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ActivationDetailsSchema, CreatedActivation, PollResponse } from '../../src/activation/activation.schemas.js';
import type {
  ArtifactDetail,
  ArtifactList,
  ArtifactSchema,
  ManifestSchema,
  Published,
} from '../../src/artifacts/artifacts.schemas.js';
import type {
  Balance as BalanceSchema,
  ByokDeleted,
  ByokStatus as ByokStatusSchema,
  CheckoutBody,
  CheckoutCreated,
  Modes,
  Packs,
  PublishableKey,
  SubscriptionStatus,
  Tier,
  Transactions,
} from '../../src/billing/billing.schemas.js';
import type { FileList, FileSchema } from '../../src/files/files.schemas.js';
import type { Success } from '../../src/http/schemas.js';
import type { MeSchema, SignedInSchema } from '../../src/identity/auth.schemas.js';
import type { CreatedKey, KeyList } from '../../src/identity/keys.schemas.js';
import type { SkillList } from '../../src/marketplace/marketplace.schemas.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { SubscribeUrl } from '../../src/runs/control-plane.schemas.js';
import type {
  CancelResponse,
  CreatedExecution as CreatedExecutionSchema,
  CreateExecutionBody,
  EventTimesResponse,
  HistoryResponse,
  PostedEvents,
  RerunResponse,
  StatusResponse,
  StreamTokenResponse,
} from '../../src/runs/executions.schemas.js';
import type { RunAnswer } from '../../src/runs/runs.schemas.js';
import type { SkilletClient } from '../../src/sdk/client.js';
import type {
  Activation,
  ActivationDetails,
  ApiKey,
  Artifact,
  Balance,
  ByokStatus,
  CreatedApiKey,
  CreatedExecution,
  CreatedWebhookEndpoint,
  CredentialType,
  CreditPack,
  ExecutionEvent,
  ExecutionState,
  ExecutionStatus,
  HistoryItem,
  InputFile,
  Manifest,
  Me,
  Page,
  PollResult,
  RunFileRef,
  RunResult,
  SkillItem,
  SubscriptionInfo,
  Transaction,
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryStatus,
  WebhookEndpoint,
  WebhookEventType,
  WorkspaceRole,
} from '../../src/sdk/types.js';
import type { InstalledSkill as InstalledSkillSchema, InstallFolderBody } from '../../src/skills/skill-upload.schemas.js';
import type {
  CreatedWebhookEndpoint as CreatedWebhookEndpointSchema,
  CreateWebhookBody,
  DeliveriesQuery,
  UpdateWebhookBody,
  WebhookDeliveryDetail as WebhookDeliveryDetailSchema,
  WebhookDeliveryPage,
  WebhookDelivery as WebhookDeliverySchema,
  WebhookEndpointList,
  WebhookEndpoint as WebhookEndpointSchema,
  WebhookSecret,
} from '../../src/webhooks/webhooks.schemas.js';

/** What one client call resolves to. */
/** An intersection written out as one object, which is how the schemas' Static reads. */
type Flat<T> = { [K in keyof T]: T[K] };
type Answer<Call> = Call extends (...args: never[]) => Promise<infer Value> ? Value : never;
type Client = SkilletClient;

describe('the SDK types match the route schemas', () => {
  it('identity and activation', () => {
    expectTypeOf<Me>().toEqualTypeOf<Static<typeof MeSchema>>();
    expectTypeOf<WorkspaceRole>().toEqualTypeOf<Static<typeof MeSchema>['workspace']['role']>();
    expectTypeOf<CredentialType>().toEqualTypeOf<Static<typeof MeSchema>['credential']['type']>();
    expectTypeOf<Activation>().toEqualTypeOf<Static<typeof CreatedActivation>>();
    // The schema lists the approved-only fields as optional on every status; the SDK says which
    // status carries them, which is narrower (and what poll.ts returns), so each SDK answer is a
    // schema answer and the two agree on the statuses and on the approved fields.
    type Poll = Static<typeof PollResponse>;
    expectTypeOf<PollResult>().toExtend<Poll>();
    expectTypeOf<PollResult['status']>().toEqualTypeOf<Poll['status']>();
    expectTypeOf<Omit<Extract<PollResult, { status: 'approved' }>, 'status'>>().toEqualTypeOf<Required<Omit<Poll, 'status'>>>();
    expectTypeOf<ActivationDetails>().toEqualTypeOf<Static<typeof ActivationDetailsSchema>>();
    expectTypeOf<Answer<Client['activation']['lookup']>>().toEqualTypeOf<Static<typeof ActivationDetailsSchema>>();
    expectTypeOf<ApiKey>().toEqualTypeOf<Static<typeof KeyList>['keys'][number]>();
    expectTypeOf<CreatedApiKey>().toEqualTypeOf<Static<typeof CreatedKey>>();
    expectTypeOf<Answer<Client['keys']['list']>>().toEqualTypeOf<Static<typeof KeyList>>();
  });

  it('skills and executions', () => {
    expectTypeOf<Page<SkillItem>>().toEqualTypeOf<Static<typeof SkillList>>();
    expectTypeOf<ExecutionState>().toEqualTypeOf<Static<typeof StatusResponse>['status']>();
    expectTypeOf<CreatedExecution>().toEqualTypeOf<Static<typeof CreatedExecutionSchema>>();
    expectTypeOf<{ data: ExecutionEvent[] }>().toEqualTypeOf<Static<typeof PostedEvents>>();
    expectTypeOf<ExecutionStatus>().toEqualTypeOf<Static<typeof StatusResponse>>();
    expectTypeOf<Flat<RunResult>>().toEqualTypeOf<Flat<Static<typeof RunAnswer>>>();
    expectTypeOf<HistoryItem>().toEqualTypeOf<Static<typeof HistoryResponse>['items'][number]>();
  });

  it('artifacts', () => {
    // One Artifact type serves the list (fileList, no content), the detail (content, no
    // fileList) and the install answer (neither), so each shape is the SDK type with the
    // optional fields settled as SPEC.md's Artifact table says.
    type Fields = Omit<Artifact, 'fileList' | 'content'>;
    type ListItem = Extract<Static<typeof ArtifactList>, unknown[]>[number];
    expectTypeOf<Fields>().toEqualTypeOf<Static<typeof ArtifactSchema>>();
    expectTypeOf<Flat<Fields & Required<Pick<Artifact, 'fileList'>>>>().toEqualTypeOf<ListItem>();
    expectTypeOf<Flat<Fields & Required<Pick<Artifact, 'content'>>>>().toEqualTypeOf<Static<typeof ArtifactDetail>>();
    expectTypeOf<Static<typeof ArtifactList>>().toExtend<Artifact[] | Page<Artifact>>();
    expectTypeOf<Manifest>().toEqualTypeOf<Static<typeof ManifestSchema>>();
  });

  it('input files', () => {
    expectTypeOf<InputFile>().toEqualTypeOf<Static<typeof FileSchema>>();
    expectTypeOf<Page<InputFile>>().toEqualTypeOf<Static<typeof FileList>>();
    expectTypeOf<Answer<Client['files']['upload']>>().toEqualTypeOf<Static<typeof FileSchema>>();
    expectTypeOf<Answer<Client['files']['list']>>().toEqualTypeOf<Static<typeof FileList>>();
    expectTypeOf<RunFileRef[] | undefined>().toEqualTypeOf<Static<typeof CreateExecutionBody>['files']>();
    expectTypeOf<Static<typeof Success>>().toExtend<Answer<Client['files']['remove']>>();
  });

  it('billing', () => {
    expectTypeOf<Balance>().toEqualTypeOf<Static<typeof BalanceSchema>>();
    expectTypeOf<{ packs: CreditPack[] }>().toEqualTypeOf<Static<typeof Packs>>();
    expectTypeOf<{ transactions: Transaction[] }>().toEqualTypeOf<Static<typeof Transactions>>();
    expectTypeOf<SubscriptionInfo>().toEqualTypeOf<Static<typeof Tier>['info']>();
    // provider is optional because DELETE /byok answers without it (SPEC.md, Billing).
    expectTypeOf<Required<ByokStatus>>().toEqualTypeOf<Static<typeof ByokStatusSchema>>();
    expectTypeOf<Static<typeof ByokDeleted>>().toExtend<ByokStatus>();
  });

  it('webhooks', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<Static<typeof WebhookEndpointSchema>['events'][number]>();
    expectTypeOf<WebhookEndpoint>().toEqualTypeOf<Static<typeof WebhookEndpointSchema>>();
    expectTypeOf<CreatedWebhookEndpoint>().toEqualTypeOf<Static<typeof CreatedWebhookEndpointSchema>>();
    expectTypeOf<{ webhooks: WebhookEndpoint[] }>().toEqualTypeOf<Static<typeof WebhookEndpointList>>();
    expectTypeOf<WebhookDeliveryStatus>().toEqualTypeOf<Static<typeof WebhookDeliverySchema>['status']>();
    expectTypeOf<WebhookDeliveryStatus | undefined>().toEqualTypeOf<Static<typeof DeliveriesQuery>['status']>();
    expectTypeOf<WebhookDelivery>().toEqualTypeOf<Static<typeof WebhookDeliverySchema>>();
    expectTypeOf<Page<WebhookDelivery>>().toEqualTypeOf<Static<typeof WebhookDeliveryPage>>();
    expectTypeOf<WebhookAttempt>().toEqualTypeOf<Static<typeof WebhookDeliveryDetailSchema>['attemptLog'][number]>();
    expectTypeOf<WebhookDeliveryDetail>().toEqualTypeOf<Static<typeof WebhookDeliveryDetailSchema>>();
  });
});

describe("the client's inline shapes match the route schemas", () => {
  it('answers', () => {
    expectTypeOf<Answer<Client['auth']['me']>>().toEqualTypeOf<Static<typeof MeSchema>>();
    expectTypeOf<Answer<Client['auth']['login']>>().toEqualTypeOf<Static<typeof SignedInSchema>>();
    expectTypeOf<Answer<Client['auth']['signup']>>().toEqualTypeOf<Static<typeof SignedInSchema>>();
    expectTypeOf<Answer<Client['keys']['create']>>().toEqualTypeOf<Static<typeof CreatedKey>>();
    // These two promise less than the server sends (cancel and rerun type their status as any
    // string), which is safe for a caller but loose. Until they are tightened: every answer fits.
    expectTypeOf<Static<typeof CancelResponse>>().toExtend<Answer<Client['executions']['cancel']>>();
    expectTypeOf<Static<typeof RerunResponse>>().toExtend<Answer<Client['executions']['rerun']>>();
    expectTypeOf<Answer<Client['executions']['streamUrl']>>().toEqualTypeOf<Static<typeof StreamTokenResponse>>();
    expectTypeOf<Answer<Client['executions']['history']>>().toEqualTypeOf<Static<typeof HistoryResponse>>();
    expectTypeOf<Answer<Client['executions']['eventTimes']>>().toEqualTypeOf<Static<typeof EventTimesResponse>>();
    expectTypeOf<Answer<Client['artifacts']['publish']>>().toEqualTypeOf<Static<typeof Published>>();
    expectTypeOf<Answer<Client['billing']['purchase']>>().toEqualTypeOf<Static<typeof CheckoutCreated>>();
    expectTypeOf<Answer<Client['billing']['tier']>>().toEqualTypeOf<Static<typeof Tier>>();
    expectTypeOf<Answer<Client['billing']['modes']>>().toEqualTypeOf<Static<typeof Modes>>();
    expectTypeOf<Answer<Client['skills']['install']>>().toEqualTypeOf<Static<typeof InstalledSkillSchema>>();
    expectTypeOf<Answer<Client['billing']['subscription']>>().toEqualTypeOf<Static<typeof SubscriptionStatus>>();
    expectTypeOf<Answer<Client['billing']['cancelSubscription']>>().toEqualTypeOf<Static<typeof SubscriptionStatus>>();
    expectTypeOf<Answer<Client['billing']['publishableKey']>>().toEqualTypeOf<Static<typeof PublishableKey>>();
    expectTypeOf<Answer<Client['webhooks']['rotateSecret']>>().toEqualTypeOf<Static<typeof WebhookSecret>>();
    expectTypeOf<Answer<Client['events']['subscribeUrl']>>().toEqualTypeOf<Static<typeof SubscribeUrl>>();
    expectTypeOf<Static<typeof Success>>().toExtend<Answer<Client['auth']['logout']>>();
  });

  it('requests', () => {
    expectTypeOf<Parameters<Client['billing']['subscribe']>[0]>().toEqualTypeOf<Static<typeof CheckoutBody>>();
    expectTypeOf<Parameters<Client['skills']['install']>[1]>().toEqualTypeOf<Static<typeof InstallFolderBody>['files']>();
    expectTypeOf<Parameters<Client['webhooks']['create']>[0]>().toEqualTypeOf<Static<typeof CreateWebhookBody>>();
    expectTypeOf<Parameters<Client['webhooks']['update']>[1]>().toEqualTypeOf<Static<typeof UpdateWebhookBody>>();
  });
});

describe('the SDK stays importable by clients', () => {
  it('imports nothing from outside src/sdk/ at run time', async () => {
    const dir = path.join(PROJECT_ROOT, 'src', 'sdk');
    const reaches: string[] = [];
    for (const name of (await readdir(dir)).filter((file) => file.endsWith('.ts'))) {
      const code = await readFile(path.join(dir, name), 'utf8');
      for (const match of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s*['"]([^'"]+)['"]/gm)) {
        const [, , typeOnly, specifier = ''] = match;
        if (!typeOnly && !specifier.startsWith('./')) reaches.push(`${name} imports ${specifier}`);
      }
      // Side-effect and dynamic imports run code too, wherever they point.
      for (const match of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/gm)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (!specifier.startsWith('./')) reaches.push(`${name} imports ${specifier}`);
      }
    }
    expect(reaches).toEqual([]);
  });
});
