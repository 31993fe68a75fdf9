import type { WorkspaceRole } from '../db/tables-identity.js';
import type { Caller } from '../ports/callers.js';
import { subscriptionModeOf } from './subscription-mode.js';
import type { UserView } from './users.js';

export interface Profile {
  user: UserView;
  workspace: { id: string; name: string | null; personal: boolean; role: WorkspaceRole };
  credential: { type: Caller['kind']; id: string };
  tier: ReturnType<typeof subscriptionModeOf>;
}

/** Who the caller is and where they act (GET /me): all of it came with the credential. */
export function profileOf(caller: Caller, nowMs: number): Profile {
  return {
    user: {
      id: caller.userId,
      email: caller.email,
      isAdmin: caller.isAdmin,
      personalWorkspaceId: caller.personalWorkspaceId,
      createdAt: caller.userCreatedAt,
    },
    workspace: { id: caller.workspaceId, name: caller.workspaceName, personal: caller.workspacePersonal, role: caller.role },
    credential: { type: caller.kind, id: caller.credentialId },
    tier: subscriptionModeOf(caller.billing, nowMs),
  };
}
