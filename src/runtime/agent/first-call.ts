import type { AgentSettings } from '../../config.js';
import { routeModel } from '../../models/model-route.js';
import type { Skill } from '../../ports/skills.js';
import { chooseToolset } from '../computer/toolset.js';
import { systemPrompt } from './agent-runtime.js';
import { callCostBound } from './model-budget.js';
import { agentToolSpecs } from './tools.js';

/**
 * What the first model call of a run of `skill` with `input` will hold at least, on the
 * house key: 0 for a skill with no model, for a payer with a key of their own (their calls
 * cost nothing here), and where no house key would take the call (the run then fails saying
 * how to add one, which credits cannot help). It is the hold the run takes (model-budget.ts)
 * less what is only known once the run has started: the computer's part of the system
 * prompt. So a start refused for it would certainly have stopped at its first call.
 */
export function firstCallHold(
  settings: AgentSettings,
  run: { skill: Skill; input: string; ownKey: boolean; webFetch: boolean },
): number {
  const { skill, input } = run;
  if (skill.runtime !== 'agent' || run.ownKey) return 0;
  const route = routeModel(settings, skill.models, undefined);
  if (!route) return 0;
  const toolset = chooseToolset(skill.allowedTools, run.webFetch);
  return callCostBound(settings, route.model, {
    system: systemPrompt(skill, toolset, undefined),
    turns: [{ role: 'user', text: input }],
    tools: agentToolSpecs(toolset.names),
  });
}
