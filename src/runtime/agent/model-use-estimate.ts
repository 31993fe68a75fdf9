import type { AgentSettings } from '../../config.js';
import { tokenCost } from '../../model-prices.js';
import { routeModel } from '../../models/model-route.js';
import type { Skill } from '../../ports/skills.js';
import { chooseToolset } from '../computer/toolset.js';
import { systemPrompt } from './agent-runtime.js';
import { agentToolSpecs } from './tools.js';

/** What a skill's model calls cost on top of its price, as a skill object says it. */
export interface ModelUse {
  /** The model a run on the house key would call. */
  model: string;
  /** Whole Ds a typical run's model calls cost at the house's prices: an estimate, rounded up. */
  aboutDs: number;
  /** The caller has a key of their own: their runs' model calls cost 0 Ds here (billing rule 4). */
  ownKey: boolean;
}

/*
 * A typical run, as the agent loop makes it: the model is called about six times (read the
 * input, a few tool calls, a summary), each call sends the whole conversation again, and each
 * adds a tool call and its result (about 1,500 tokens) to it and answers in about 500 tokens.
 * Text runs about four bytes a token. The computer's own prompt (known only once a run has
 * started) is counted as 1,000 tokens. These are the assumptions the estimate rests on.
 */
const TYPICAL_CALLS = 6;
const GROWTH_PER_CALL = 1500;
const OUTPUT_PER_CALL = 500;
const BYTES_PER_TOKEN = 4;
const FRAMING_TOKENS = 500;
const COMPUTER_PROMPT_TOKENS = 1000;

/**
 * The model a run would call on the house key: the one DESIGN §9's routing picks, or, with no
 * house key set, the first the skill names (else the Anthropic default), which a payer's own key
 * of that provider would call.
 */
function houseModel(settings: AgentSettings, skill: Skill): string {
  const route = routeModel(settings, skill.models, undefined);
  if (route) return route.model;
  return skill.models.anthropic ?? skill.models.openai ?? settings.anthropic.model;
}

/** The model use of one typical run of `skill`; null for a skill that calls no model. */
export function modelUseOf(settings: AgentSettings, skill: Skill, ownKey: boolean): ModelUse | null {
  if (skill.runtime !== 'agent') return null;
  const toolset = chooseToolset(skill.allowedTools, false);
  const promptBytes =
    Buffer.byteLength(systemPrompt(skill, toolset, undefined)) + Buffer.byteLength(JSON.stringify(agentToolSpecs(toolset.names)));
  const base = Math.ceil(promptBytes / BYTES_PER_TOKEN) + FRAMING_TOKENS + (toolset.needsComputer ? COMPUTER_PROMPT_TOKENS : 0);
  const grown = (GROWTH_PER_CALL * TYPICAL_CALLS * (TYPICAL_CALLS - 1)) / 2;
  const usage = { input_tokens: base * TYPICAL_CALLS + grown, output_tokens: OUTPUT_PER_CALL * TYPICAL_CALLS };
  const model = houseModel(settings, skill);
  return { model, aboutDs: Math.max(0, Math.ceil(tokenCost(settings.prices, model, usage) - 1e-9)), ownKey };
}
