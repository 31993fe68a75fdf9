import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { Skill } from '../ports/skills.js';
import { firstCallHold } from '../runtime/agent/first-call.js';
import { findSkill } from '../skills/workspace-skills.js';
import type { StartNeeds } from './billing.js';
import { ownModelKey } from './byok.js';
import type { Payer } from './payer.js';

type Reads = Pick<AppContext, 'db' | 'keys' | 'config'>;

/**
 * What a run of `skill` with `input` needs in free credits before it starts: its price,
 * then the hold of its first model call on the house key. A start that cannot afford both
 * is refused with 402 up front, instead of being accepted and then stopping at its first
 * call with `limit_reached`. The own key is read only for a payer who is charged.
 */
export function startNeeds(ctx: Reads, payer: Payer, skill: Skill, input: string): StartNeeds {
  return {
    price: skill.price,
    firstCallHold: async () => {
      if (skill.runtime !== 'agent') return 0;
      const ownKey = (await ownModelKey(ctx, payer.userId)) !== undefined;
      const webFetch = ctx.config.executions.allowedHosts.length > 0;
      return firstCallHold(ctx.config.agent, { skill, input, ownKey, webFetch });
    },
  };
}

/**
 * `GET /billing/balance?skill=<slug>`: canExecute answers for a run of that skill of the
 * caller's workspace, with the shortest input (the start counts the input it is given).
 */
export async function skillStartNeeds(
  ctx: Reads & Pick<AppContext, 'skills' | 'blobs'>,
  caller: Caller,
  slug: string,
): Promise<StartNeeds> {
  const skill = await findSkill(ctx, caller.workspaceId, slug);
  if (!skill) throw new NotFound(`No skill with slug ${slug} in this workspace`);
  return startNeeds(ctx, caller, skill, '');
}
