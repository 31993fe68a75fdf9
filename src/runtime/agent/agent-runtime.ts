import { mkdir } from 'node:fs/promises';
import { clientFor } from '../../models/model-clients.js';
import { NO_MODEL_KEY, routeModel } from '../../models/model-route.js';
import type { Skill } from '../../ports/skills.js';
import { computerMissing } from '../../sandbox/computer/computer-availability.js';
import { computerLimits } from '../../sandbox/computer/computer-memory.js';
import type { RunComputer } from '../../sandbox/computer/computer-session.js';
import { egressPolicyOf } from '../../sandbox/egress/egress-policy.js';
import { breachReason } from '../../sandbox/limit-breach.js';
import { ENABLE_SANDBOX_HINT } from '../../sandbox/sandbox.js';
import { SkillRefused } from '../../sandbox/types.js';
import { openRunGroup } from '../../sandbox/watched-child.js';
import { computerPrompt, installedSoftware } from '../computer/computer-prompt.js';
import { openRunComputer, stopRunComputer } from '../computer/run-computer.js';
import { chooseToolset, FILE_TOOL_NAMES, type Toolset } from '../computer/toolset.js';
import { isWarmComputer, type RunRequest, type RuntimeServices, resultWithoutRun, type SkillRuntime } from '../runtime.js';
import { reportKill } from '../script/script-exit.js';
import { RunOverLimit, runAgent } from './agent-loop.js';
import { agentToolSpecs } from './tools.js';

/** The skill's instructions, and what the model needs to know about where it works. */
export function systemPrompt(skill: Skill, toolset: Toolset, computer: string | undefined): string {
  const tools = toolset.names.length > 0 ? toolset.names.join(', ') : 'none';
  const fileTools = toolset.names.some((name) => FILE_TOOL_NAMES.includes(name))
    ? [
        'For list_files, read_file, write_file and run_script: the skill\'s own files are read only, at paths starting "skill/";',
        'files written at paths starting "output/" are delivered to the user as the result of this run.',
      ]
    : [];
  return [
    `You are carrying out the skill "${skill.name}": ${skill.description}`,
    '',
    skill.body,
    '',
    '---',
    `Tools you have: ${tools}.`,
    ...(computer ? [computer] : []),
    ...fileTools,
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
      const toolset = chooseToolset(skill.allowedTools, services.config.executions.allowedHosts.length > 0);
      const missing = toolset.needsComputer ? computerMissing(services.sandbox) : undefined;
      if (missing) throw new SkillRefused(missing);
      const route = routeModel(settings, skill.models, await request.account.ownModelKey());
      if (!route)
        return { finished: Promise.resolve(resultWithoutRun({ kind: 'failed', reason: NO_MODEL_KEY, fault: 'service' })) };
      await mkdir(request.outputDir, { recursive: true });
      const limits = toolset.needsComputer
        ? computerLimits(request.limits, services.config.executions.computerMemoryMb)
        : request.limits;

      const warm = isWarmComputer(request.warm) ? request.warm : undefined;
      const group = warm ? warm.group : await openRunGroup(services.sandbox.cgroups, limits);
      let computer: RunComputer | undefined = warm?.computer;
      try {
        if (!computer && toolset.needsComputer) computer = await openRunComputer(services, request, group);
      } catch (error) {
        await group?.remove();
        throw new SkillRefused(`this server could not set up the run's computer (${(error as Error).message}); try again`);
      }
      const folders = () => ({
        output: request.outputDir,
        ...(computer?.workspaceDir ? { workspace: computer.workspaceDir } : {}),
      });
      // What the run holds, given back when it ends or cannot begin. The end waits only for
      // what runs in its computer to stop; the group and folders are cleared away behind it.
      const letGo = async () => {
        if (warm) return warm.release();
        if (!computer) return group?.remove();
        const opened = computer;
        await stopRunComputer(opened, group, 0);
        services.clearings.start("a run's computer", async () => {
          await group?.remove();
          await opened.release();
        });
      };
      try {
        // A resumed run starts from the files its last checkpoint holds.
        if (request.journal?.resumedFrom) await request.journal.restore(folders());
      } catch (error) {
        await letGo();
        throw new SkillRefused(`this worker could not put back the run's files (${(error as Error).message})`);
      }
      const overLimit = new AbortController();
      const timer = setTimeout(
        () => overLimit.abort(new RunOverLimit(`the run took longer than its limit of ${limits.timeoutMs} ms`)),
        limits.timeoutMs,
      );
      // Every script of the run starts in its group, so memory, processes and CPU are the
      // run's. Nothing runs in it between scripts: while one runs, its own watch reads the
      // counters; after it, this check ends the run on the first limit they show. On a
      // computer a memory kill stops one process, not the run: the call that finds it tells
      // the model (computer-tools.ts), and a script's own watch names it for run_script.
      const checkLimits = async () => {
        const breach = await group?.breach({ memory: !computer });
        if (!breach || overLimit.signal.aborted) return;
        // The server's own limits object: the metrics tell their server's kills by it.
        reportKill(breach.limit, request.limits);
        overLimit.abort(new RunOverLimit(breachReason(breach, limits)));
      };
      const afterScript = async () => {
        if (computer) await group?.answerMemoryKills();
        await checkLimits();
      };
      const signal = AbortSignal.any([request.signal, overLimit.signal]);
      const tools = agentToolSpecs(toolset.names);
      const session = computer?.session;
      if (session) signal.addEventListener('abort', () => session.close(), { once: true });
      const prompt = computer
        ? computerPrompt({
            slug: skill.slug,
            uploads: request.uploads?.files ?? [],
            allowedHosts: computer.allowedHosts,
            installed: await installedSoftware(services.sandbox),
          })
        : undefined;
      const finished = runAgent({
        client: clientFor(settings, route),
        route,
        settings,
        system: systemPrompt(skill, toolset, prompt),
        input: request.input,
        tools,
        toolContext: {
          skillDir: skill.dir,
          outputDir: request.outputDir,
          // The narrow tools of §9 stay usable as aliases on the computer, for skills written for them.
          allowed: toolset.needsComputer ? [...toolset.names, ...FILE_TOOL_NAMES] : toolset.names,
          sandbox: services.sandbox,
          limits,
          builtIn: skill.builtIn,
          signal,
          ...(group ? { group, checkLimits: afterScript } : {}),
          ...(computer
            ? {
                computer: {
                  computer: computer.session,
                  bashPrefixes: toolset.bashPrefixes,
                  ...(group
                    ? { checkLimits, memory: { limitMb: limits.memoryMb, answerKills: () => group.answerMemoryKills() } }
                    : {}),
                },
              }
            : {}),
          ...(toolset.names.includes('web_fetch') ? { webPolicy: egressPolicyOf(services.config) } : {}),
        },
        account: request.account,
        ...(request.journal ? { journal: request.journal } : {}),
        // A computer with a network can reach hosts from bash as well as web_fetch can.
        outsideEffects: ['web_fetch', ...(computer && computer.allowedHosts.length > 0 ? ['bash'] : [])],
        folders,
        signal,
        onMessage: request.onMessage,
      }).finally(() => {
        clearTimeout(timer);
        return letGo();
      });
      return { finished };
    },
  };
}
