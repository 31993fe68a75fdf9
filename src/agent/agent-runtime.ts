import { mkdir } from 'node:fs/promises';
import { breachReason } from '../skills/limit-breach.js';
import type { Skill } from '../skills/registry.js';
import { type RunRequest, type RuntimeServices, resultWithoutRun, SkillRefused, type SkillRuntime } from '../skills/runtime.js';
import { ENABLE_SANDBOX_HINT } from '../skills/sandbox.js';
import { reportKill } from '../skills/script-runtime.js';
import { openRunGroup } from '../skills/watched-child.js';
import { RunOverLimit, runAgent } from './agent-loop.js';
import { anthropicClient } from './anthropic-client.js';
import type { ModelClient } from './conversation.js';
import { type ModelRoute, NO_MODEL_KEY, routeModel } from './model-route.js';
import { openaiClient } from './openai-client.js';
import { agentToolSpecs } from './tools.js';

function clientFor(route: ModelRoute): ModelClient {
  return route.provider === 'anthropic' ? anthropicClient(route.endpoint) : openaiClient(route.endpoint);
}

/** The skill's instructions, and what the model needs to know about where it works. */
function systemPrompt(skill: Skill, toolNames: string[]): string {
  const tools = toolNames.length > 0 ? toolNames.join(', ') : 'none';
  return [
    `You are carrying out the skill "${skill.name}": ${skill.description}`,
    '',
    skill.body,
    '',
    '---',
    `Tools you have: ${tools}.`,
    'The skill\'s own files (its references/, assets/ and scripts/ folders) are read only, at paths starting "skill/".',
    'Files you write go to the run\'s output, at paths starting "output/": they are delivered to the user as the result of this run.',
    "The user's request is the first user message. Work until the task is done, then answer with a short summary of what you did.",
  ].join('\n');
}

/**
 * Runs skills whose work is done by a model (DESIGN §9): the loop in agent-loop.ts, on the
 * provider the payer's own key or the house's keys route it to.
 */
export function agentRuntime(services: RuntimeServices): SkillRuntime {
  const settings = services.config.agent;
  return {
    async start(request: RunRequest) {
      const { skill } = request;
      if (!skill.builtIn && !services.sandbox.runsUntrusted) {
        throw new SkillRefused(`This server runs only its built-in skills without a sandbox: ${ENABLE_SANDBOX_HINT}.`);
      }
      const route = routeModel(settings, skill.models, await request.account.ownModelKey());
      if (!route)
        return { finished: Promise.resolve(resultWithoutRun({ kind: 'failed', reason: NO_MODEL_KEY, fault: 'service' })) };
      await mkdir(request.outputDir, { recursive: true });

      const group = await openRunGroup(services.sandbox.cgroups, request.limits);
      const overLimit = new AbortController();
      const timer = setTimeout(
        () => overLimit.abort(new RunOverLimit(`the run took longer than its limit of ${request.limits.timeoutMs} ms`)),
        request.limits.timeoutMs,
      );
      // Every script of the run starts in its group, so memory, processes and CPU are the
      // run's. Nothing runs in it between scripts: while one runs, its own watch reads the
      // counters; after it, this check ends the run on the first limit they show.
      const checkLimits = async () => {
        const breach = await group?.breach();
        if (!breach || overLimit.signal.aborted) return;
        reportKill(breach.limit, request.limits);
        overLimit.abort(new RunOverLimit(breachReason(breach, request.limits)));
      };
      const signal = AbortSignal.any([request.signal, overLimit.signal]);
      const tools = agentToolSpecs(skill.allowedTools);
      const finished = runAgent({
        client: clientFor(route),
        route,
        settings,
        system: systemPrompt(
          skill,
          tools.map((tool) => tool.name),
        ),
        input: request.input,
        tools,
        toolContext: {
          skillDir: skill.dir,
          outputDir: request.outputDir,
          allowed: tools.map((tool) => tool.name),
          sandbox: services.sandbox,
          limits: request.limits,
          builtIn: skill.builtIn,
          signal,
          ...(group ? { group, checkLimits } : {}),
        },
        account: request.account,
        signal,
        onMessage: request.onMessage,
      }).finally(async () => {
        clearTimeout(timer);
        await group?.remove();
      });
      return { finished };
    },
  };
}
