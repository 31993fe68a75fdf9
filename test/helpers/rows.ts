import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ArtifactRow } from '../../src/artifacts/artifacts.store.js';
import { insertArtifact } from '../../src/artifacts/artifacts.store.js';
import type { Tables } from '../../src/db/tables.js';
import type { WorkspaceRole } from '../../src/db/tables-identity.js';
import type { ExecutionStatus } from '../../src/db/tables-runs.js';
import { insertUserWithPersonalWorkspace } from '../../src/identity/users.store.js';
import { insertMember, insertTeamWorkspace } from '../../src/identity/workspaces.store.js';
import type { Caller } from '../../src/ports/callers.js';
import { type ExecutionRow, insertExecution } from '../../src/runs/executions.store.js';
import { uniqueEmail } from './factories.js';

/**
 * Rows written straight through the stores, for domain-tier tests: no HTTP, no password
 * hashing, no rate limits. Each factory creates the parents it needs when not given them.
 */

type Db = Kysely<Tables>;

/** Every row is dated at the test clock's start unless a test says otherwise. */
const EPOCH = '2026-01-01T00:00:00.000Z';

export interface UserWithWorkspace {
  id: string;
  email: string;
  isAdmin: boolean;
  /** Their personal workspace, which they own. */
  workspaceId: string;
}

/** A user with their personal workspace, and `credits` granted through the ledger (so balance is the sum). */
export async function aUser(
  db: Db,
  options: { credits?: number; isAdmin?: boolean; at?: string } = {},
): Promise<UserWithWorkspace> {
  const row = await insertUserWithPersonalWorkspace(db, {
    id: randomUUID(),
    email: uniqueEmail('row'),
    passwordHash: 'not-a-hash',
    isAdmin: options.isAdmin ?? false,
    personalWorkspaceId: randomUUID(),
    createdAt: options.at ?? EPOCH,
    signupCredits: options.credits ?? 0,
  });
  return { id: row.id, email: row.email, isAdmin: row.is_admin === 1, workspaceId: row.personal_workspace_id };
}

/** A team workspace owned by `owner` (a new user when not given), with `members` in their roles. */
export async function aTeam(
  db: Db,
  options: { owner?: UserWithWorkspace; members?: { user: UserWithWorkspace; role: WorkspaceRole }[] } = {},
): Promise<{ id: string; owner: UserWithWorkspace }> {
  const owner = options.owner ?? (await aUser(db));
  const id = randomUUID();
  await insertTeamWorkspace(db, { id, name: `Team ${id.slice(0, 8)}`, ownerId: owner.id, createdAt: EPOCH });
  for (const { user, role } of options.members ?? []) {
    await insertMember(db, { workspaceId: id, userId: user.id, role, createdAt: EPOCH });
  }
  return { id, owner };
}

/** An execution of `skill` by `user` (a new user when not given) in `workspaceId` (theirs by default). */
export async function anExecution(
  db: Db,
  options: {
    user?: UserWithWorkspace;
    workspaceId?: string;
    status?: ExecutionStatus;
    skill?: string;
    input?: string;
    ownerNode?: string;
    ownerAttempt?: string;
  } = {},
): Promise<ExecutionRow> {
  const user = options.user ?? (await aUser(db));
  const status = options.status ?? 'idle';
  const skill = options.skill ?? 'ticker';
  const finished = status === 'completed' || status === 'failed';
  return insertExecution(db, {
    execution_id: randomUUID(),
    workspace_id: options.workspaceId ?? user.workspaceId,
    user_id: user.id,
    skill_slug: skill,
    skill_name: skill,
    status,
    source: 'api',
    interface: 'api',
    input_text: options.input ?? '',
    cost: 0,
    parent_execution_id: null,
    last_sequence: 0,
    stop_reason: finished ? (status === 'completed' ? 'end_turn' : 'error') : null,
    idempotency_key: null,
    idempotency_fingerprint: null,
    created_at: EPOCH,
    started_at: status === 'idle' ? null : EPOCH,
    completed_at: finished ? EPOCH : null,
    owner_node: options.ownerNode ?? null,
    owner_attempt: options.ownerAttempt ?? null,
  });
}

/** A one-file output artifact of `execution` (a new idle-then-finished one when not given), in its workspace. */
export async function anArtifact(
  db: Db,
  options: { execution?: ExecutionRow; status?: ArtifactRow['status']; title?: string } = {},
): Promise<ArtifactRow> {
  const execution = options.execution ?? (await anExecution(db, { status: 'completed' }));
  const row: Omit<ArtifactRow, 'number'> = {
    id: randomUUID(),
    workspace_id: execution.workspace_id,
    user_id: execution.user_id,
    execution_id: execution.execution_id,
    skill_slug: execution.skill_slug,
    skill_name: execution.skill_name,
    title: options.title ?? 'output.txt',
    file_type: 'txt',
    artifact_type: 'output',
    input_text: execution.input_text,
    content_size: 0,
    created_skill_slug: null,
    metadata: null,
    is_installed: 0,
    bundle_type: null,
    status: options.status ?? 'completed',
    cost: 0,
    execution_time_ms: 0,
    created_at: EPOCH,
    is_public: 0,
    manifest: null,
    main_path: null,
  };
  await insertArtifact(db, row);
  return { ...row, number: 0 };
}

/**
 * The caller a credential of `user` resolves to in `workspaceId`, as the request layer
 * builds it; domain functions take this rather than a request.
 */
export function callerFor(
  user: UserWithWorkspace,
  options: { workspaceId?: string; role?: WorkspaceRole; kind?: Caller['kind'] } = {},
): Caller {
  const workspaceId = options.workspaceId ?? user.workspaceId;
  const personal = workspaceId === user.workspaceId;
  return {
    kind: options.kind ?? 'session',
    credentialId: randomUUID(),
    userId: user.id,
    email: user.email,
    isAdmin: user.isAdmin,
    userCreatedAt: EPOCH,
    personalWorkspaceId: user.workspaceId,
    workspaceId,
    workspaceName: personal ? null : 'Team',
    workspacePersonal: personal,
    role: options.role ?? 'owner',
    billing: { subscriptionExpiresAt: null, siteLicenseUntil: null, hasByok: false },
  };
}
