/**
 * The wire shapes exist once: as the TypeBox schemas of src/sdk/schemas/, which the routes
 * answer with and whose `Static<>` the SDK's types are (src/sdk/types.ts). The type checks
 * here run in the project's typecheck (`tsc -p tsconfig.json` covers test/); they pin what
 * each client call resolves to, so a call typed by hand again fails. The run-time checks find
 * a shape written a second time beside the routes, and keep the SDK importable by clients.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Static, TSchema } from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import type { CreateExecutionBody } from '../../src/runs/executions.schemas.js';
import type { SkilletClient } from '../../src/sdk/client.js';
import type { ActivationDetailsSchema, CreatedActivation, PollResponse } from '../../src/sdk/schemas/activation.js';
import type { ArtifactDetail, ArtifactList, ArtifactSchema, ManifestSchema, Published } from '../../src/sdk/schemas/artifacts.js';
import type {
  BalanceSchema,
  ByokDeleted,
  ByokStatusSchema,
  CheckoutBody,
  CheckoutCreated,
  Modes,
  Packs,
  PublishableKey,
  SubscriptionStatusSchema,
  Tier,
  Transactions,
} from '../../src/sdk/schemas/billing.js';
import type { Success } from '../../src/sdk/schemas/common.js';
import type {
  CancelResponse,
  CreatedExecution,
  EventTimesResponse,
  HistoryResponse,
  PostedEvents,
  RerunResponse,
  RunAnswer,
  StatusResponse,
  StreamTokenResponse,
  SubscribeUrl,
} from '../../src/sdk/schemas/executions.js';
import type { FileList, FileSchema } from '../../src/sdk/schemas/files.js';
import type { CreatedKey, KeyList, MeSchema, SignedInSchema } from '../../src/sdk/schemas/identity.js';
import type { InstalledSkillSchema, SkillItemSchema, SkillList } from '../../src/sdk/schemas/skills.js';
import type {
  CreatedWebhookEndpointSchema,
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookDeliveryDetailSchema,
  WebhookDeliveryPage,
  WebhookDeliverySchema,
  WebhookEndpointList,
  WebhookEndpointSchema,
  WebhookSecret,
} from '../../src/sdk/schemas/webhooks.js';
import type { Artifact, ByokStatus, PollResult, RunFileRef } from '../../src/sdk/types.js';
import type { InstallFolderBody } from '../../src/skills/skill-upload.schemas.js';

/** What one client call resolves to. */
type Answer<Call> = Call extends (...args: never[]) => Promise<infer Value> ? Value : never;
type Client = SkilletClient;

describe("each client call resolves to its route's schema", () => {
  it('identity and activation', () => {
    expectTypeOf<Answer<Client['auth']['me']>>().toEqualTypeOf<Static<typeof MeSchema>>();
    expectTypeOf<Answer<Client['auth']['login']>>().toEqualTypeOf<Static<typeof SignedInSchema>>();
    expectTypeOf<Answer<Client['auth']['signup']>>().toEqualTypeOf<Static<typeof SignedInSchema>>();
    expectTypeOf<Static<typeof Success>>().toExtend<Answer<Client['auth']['logout']>>();
    expectTypeOf<Answer<Client['keys']['create']>>().toEqualTypeOf<Static<typeof CreatedKey>>();
    expectTypeOf<Answer<Client['keys']['list']>>().toEqualTypeOf<Static<typeof KeyList>>();
    expectTypeOf<Answer<Client['activation']['start']>>().toEqualTypeOf<Static<typeof CreatedActivation>>();
    expectTypeOf<Answer<Client['activation']['lookup']>>().toEqualTypeOf<Static<typeof ActivationDetailsSchema>>();
  });

  it('skills and executions', () => {
    expectTypeOf<Answer<Client['skills']['list']>>().toEqualTypeOf<Static<typeof SkillList>>();
    expectTypeOf<Answer<Client['skills']['get']>>().toEqualTypeOf<Static<typeof SkillItemSchema>>();
    expectTypeOf<Answer<Client['skills']['install']>>().toEqualTypeOf<Static<typeof InstalledSkillSchema>>();
    expectTypeOf<Answer<Client['executions']['create']>>().toEqualTypeOf<Static<typeof CreatedExecution>>();
    expectTypeOf<Answer<Client['executions']['run']>>().toEqualTypeOf<Static<typeof RunAnswer>>();
    expectTypeOf<Answer<Client['executions']['send']>>().toEqualTypeOf<Static<typeof PostedEvents>>();
    expectTypeOf<Answer<Client['executions']['status']>>().toEqualTypeOf<Static<typeof StatusResponse>>();
    expectTypeOf<Answer<Client['executions']['history']>>().toEqualTypeOf<Static<typeof HistoryResponse>>();
    expectTypeOf<Answer<Client['executions']['cancel']>>().toEqualTypeOf<Static<typeof CancelResponse>>();
    expectTypeOf<Answer<Client['executions']['rerun']>>().toEqualTypeOf<Static<typeof RerunResponse>>();
    expectTypeOf<Answer<Client['executions']['streamUrl']>>().toEqualTypeOf<Static<typeof StreamTokenResponse>>();
    expectTypeOf<Answer<Client['executions']['eventTimes']>>().toEqualTypeOf<Static<typeof EventTimesResponse>>();
    expectTypeOf<Answer<Client['events']['subscribeUrl']>>().toEqualTypeOf<Static<typeof SubscribeUrl>>();
  });

  it('artifacts and input files', () => {
    expectTypeOf<Answer<Client['artifacts']['get']>>().toExtend<Static<typeof ArtifactSchema>>();
    expectTypeOf<Static<typeof ArtifactDetail>>().toExtend<Answer<Client['artifacts']['get']>>();
    expectTypeOf<Static<typeof ArtifactList>>().toExtend<
      Answer<Client['artifacts']['list']> | Answer<Client['artifacts']['page']>
    >();
    expectTypeOf<Answer<Client['artifacts']['manifest']>>().toEqualTypeOf<Static<typeof ManifestSchema>>();
    expectTypeOf<Answer<Client['artifacts']['publish']>>().toEqualTypeOf<Static<typeof Published>>();
    expectTypeOf<Answer<Client['files']['upload']>>().toEqualTypeOf<Static<typeof FileSchema>>();
    expectTypeOf<Answer<Client['files']['list']>>().toEqualTypeOf<Static<typeof FileList>>();
    expectTypeOf<Static<typeof Success>>().toExtend<Answer<Client['files']['remove']>>();
  });

  it('billing', () => {
    expectTypeOf<Answer<Client['billing']['balance']>>().toEqualTypeOf<Static<typeof BalanceSchema>>();
    expectTypeOf<Answer<Client['billing']['packs']>>().toEqualTypeOf<Static<typeof Packs>>();
    expectTypeOf<Answer<Client['billing']['transactions']>>().toEqualTypeOf<Static<typeof Transactions>>();
    expectTypeOf<Answer<Client['billing']['purchase']>>().toEqualTypeOf<Static<typeof CheckoutCreated>>();
    expectTypeOf<Answer<Client['billing']['tier']>>().toEqualTypeOf<Static<typeof Tier>>();
    expectTypeOf<Answer<Client['billing']['modes']>>().toEqualTypeOf<Static<typeof Modes>>();
    expectTypeOf<Answer<Client['billing']['subscription']>>().toEqualTypeOf<Static<typeof SubscriptionStatusSchema>>();
    expectTypeOf<Answer<Client['billing']['cancelSubscription']>>().toEqualTypeOf<Static<typeof SubscriptionStatusSchema>>();
    expectTypeOf<Answer<Client['billing']['publishableKey']>>().toEqualTypeOf<Static<typeof PublishableKey>>();
    expectTypeOf<Static<typeof ByokStatusSchema>>().toExtend<Answer<Client['billing']['byok']>>();
    expectTypeOf<Static<typeof ByokDeleted>>().toExtend<Answer<Client['billing']['removeByok']>>();
  });

  it('webhooks', () => {
    expectTypeOf<Answer<Client['webhooks']['create']>>().toEqualTypeOf<Static<typeof CreatedWebhookEndpointSchema>>();
    expectTypeOf<Answer<Client['webhooks']['list']>>().toEqualTypeOf<Static<typeof WebhookEndpointList>>();
    expectTypeOf<Answer<Client['webhooks']['get']>>().toEqualTypeOf<Static<typeof WebhookEndpointSchema>>();
    expectTypeOf<Answer<Client['webhooks']['rotateSecret']>>().toEqualTypeOf<Static<typeof WebhookSecret>>();
    expectTypeOf<Answer<Client['webhooks']['sendTest']>>().toEqualTypeOf<Static<typeof WebhookDeliverySchema>>();
    expectTypeOf<Answer<Client['webhooks']['deliveries']>>().toEqualTypeOf<Static<typeof WebhookDeliveryPage>>();
    expectTypeOf<Answer<Client['webhooks']['delivery']>>().toEqualTypeOf<Static<typeof WebhookDeliveryDetailSchema>>();
  });

  it('requests', () => {
    expectTypeOf<Parameters<Client['billing']['subscribe']>[0]>().toEqualTypeOf<Static<typeof CheckoutBody>>();
    expectTypeOf<Parameters<Client['skills']['install']>[1]>().toEqualTypeOf<Static<typeof InstallFolderBody>['files']>();
    expectTypeOf<Parameters<Client['webhooks']['create']>[0]>().toEqualTypeOf<Static<typeof CreateWebhookBody>>();
    expectTypeOf<Parameters<Client['webhooks']['update']>[1]>().toEqualTypeOf<Static<typeof UpdateWebhookBody>>();
    expectTypeOf<RunFileRef[] | undefined>().toEqualTypeOf<Static<typeof CreateExecutionBody>['files']>();
  });

  it('keeps the narrowings the SDK promises beyond the schema', () => {
    // The poll's schema lists the approved-only fields as optional on every status; the SDK
    // says which status carries them, so each SDK answer is a schema answer.
    type Poll = Static<typeof PollResponse>;
    expectTypeOf<PollResult>().toExtend<Poll>();
    expectTypeOf<PollResult['status']>().toEqualTypeOf<Poll['status']>();
    expectTypeOf<Omit<Extract<PollResult, { status: 'approved' }>, 'status'>>().toEqualTypeOf<Required<Omit<Poll, 'status'>>>();
    // One Artifact type serves the list item, the detail and the install answer.
    expectTypeOf<Static<typeof ArtifactDetail>>().toExtend<Artifact>();
    expectTypeOf<Extract<Static<typeof ArtifactList>, unknown[]>[number]>().toExtend<Artifact>();
    expectTypeOf<Static<typeof ByokDeleted>>().toExtend<ByokStatus>();
  });
});

/** Every object schema inside a schema (itself included), however deep. */
function* objectSchemas(schema: unknown): Generator<TSchema & { properties: object }> {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' && typeof node.properties === 'object') yield node as unknown as TSchema & { properties: object };
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) yield* objectSchemas(item);
    else yield* objectSchemas(value);
  }
}

/** The exported values of every module under `dir` whose file name passes `pick`. */
async function exportedSchemas(dir: string, pick: (file: string) => boolean): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  for (const file of await readdir(dir, { recursive: true })) {
    if (!pick(file)) continue;
    const module = (await import(path.join(dir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) found.set(`${file} ${name}`, value);
  }
  return found;
}

describe('each wire shape is written once', () => {
  it('no route schema beside the routes repeats an object the SDK answers with', async () => {
    const sdkDir = path.join(PROJECT_ROOT, 'src', 'sdk', 'schemas');
    const wire = new Map<string, TSchema>();
    for (const value of (await exportedSchemas(sdkDir, (file) => file.endsWith('.ts'))).values()) {
      for (const schema of objectSchemas(value)) {
        // Two fields or more: a lone `{ url }` or `{ success }` is a word, not a shape.
        if (Object.keys(schema.properties).length >= 2) wire.set(JSON.stringify(schema), schema);
      }
    }
    const repeats: string[] = [];
    const routeSchemas = await exportedSchemas(path.join(PROJECT_ROOT, 'src'), (file) => file.endsWith('.schemas.ts'));
    for (const [name, value] of routeSchemas) {
      for (const schema of objectSchemas(value)) {
        const same = wire.get(JSON.stringify(schema));
        if (same && same !== schema) repeats.push(`${name} writes again ${JSON.stringify(schema).slice(0, 80)}`);
      }
    }
    expect(routeSchemas.size).toBeGreaterThan(20);
    expect(repeats).toEqual([]);
  });
});

describe('the SDK stays importable by clients', () => {
  it('imports nothing but its own modules and the dependencies its package names', async () => {
    const manifest = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'sdk', 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const declared = new Set(Object.keys(manifest.dependencies ?? {}));
    const dir = path.join(PROJECT_ROOT, 'src', 'sdk');
    const reaches: string[] = [];
    for (const name of (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('.ts'))) {
      const code = await readFile(path.join(dir, name), 'utf8');
      // Inside src/sdk/ (its subfolders reach their parent), or a package the SDK depends on;
      // type imports count too, since the package's declarations carry them to its users.
      const inside = (specifier: string) => path.resolve(dir, path.dirname(name), specifier).startsWith(`${dir}${path.sep}`);
      const allowed = (specifier: string) => (specifier.startsWith('.') ? inside(specifier) : declared.has(specifier));
      for (const match of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s*['"]([^'"]+)['"]/gm)) {
        const specifier = match[3] ?? '';
        if (!allowed(specifier)) reaches.push(`${name} imports ${specifier}`);
      }
      // Side-effect and dynamic imports run code too, wherever they point.
      for (const match of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/gm)) {
        const specifier = match[1] ?? match[2] ?? '';
        if (!allowed(specifier)) reaches.push(`${name} imports ${specifier}`);
      }
    }
    expect(reaches).toEqual([]);
  });
});
