import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { clientFor } from '../models/model-clients.js';
import { NO_MODEL_KEY, routeModel } from '../models/model-route.js';
import type { ModelChoice, Skill } from '../ports/skills.js';
import type { StoredThreadRecord, ThreadRef, ThreadSink } from '../ports/thread-records.js';
import { findSkill } from '../skills/workspace-skills.js';
import { threadCaller } from './thread-agent-caller.js';
import { abortedReason, runTurnLoop, type TurnEnding } from './thread-agent-loop.js';
import { workspaceSkills } from './thread-agent-skills.js';
import { threadAccount } from './thread-charges.js';
import { offerTurnComputer } from './thread-computer.js';
import { conversationOf } from './thread-history.js';
import { runThreadTool, THREAD_TOOL_SPECS } from './thread-tools.js';

/** An agent a thread can talk to: the built-in assistant, or an agent skill by its slug. */
export interface ThreadAgentInfo {
  id: string;
  name: string;
  description: string;
}

export const ASSISTANT_ID = 'assistant';

const ASSISTANT: ThreadAgentInfo = {
  id: ASSISTANT_ID,
  name: 'Assistant',
  description:
    "Skillet's assistant: lists the workspace's skills, starts runs (with your approval) and reads their executions and artifacts.",
};

const infoOf = (skill: Skill): ThreadAgentInfo => ({ id: skill.slug, name: skill.name, description: skill.description });

/**
 * The agents of a workspace: the assistant, then every agent skill the workspace can run
 * (the server's and its installed ones), by slug. An agent skill slugged `assistant` is
 * not listed: the built-in one answers to that id.
 */
export async function listThreadAgents(ctx: AppContext, workspaceId: string): Promise<ThreadAgentInfo[]> {
  const skills = await workspaceSkills(ctx, workspaceId);
  const agents = skills.filter((skill) => skill.runtime === 'agent' && skill.slug !== ASSISTANT_ID).map(infoOf);
  return [ASSISTANT, ...agents];
}

export async function findThreadAgent(
  ctx: AppContext,
  workspaceId: string,
  agentId: string,
): Promise<ThreadAgentInfo | undefined> {
  if (agentId === ASSISTANT_ID) return ASSISTANT;
  const skill = await agentSkill(ctx, workspaceId, agentId);
  return skill && infoOf(skill);
}

async function agentSkill(ctx: AppContext, workspaceId: string, slug: string): Promise<Skill | undefined> {
  const skill = await findSkill(ctx, workspaceId, slug).catch(() => undefined);
  return skill?.runtime === 'agent' ? skill : undefined;
}

const TOOLS_NOTE = [
  'Your tools act in this workspace, as the person who wrote the latest message:',
  'list_skills (what the workspace can run), start_run (starts a run of a skill; the person is asked to approve each one),',
  'get_execution (a run: status, output, artifacts), list_artifacts and read_artifact (the files runs wrote).',
  'A run you start goes on after your answer: when it ends, a <notification> message tells you, and you can look at its result then.',
  'Messages wrapped in <notification> come from the service, not from the person. Lines like "[start_run ok: …]" in earlier',
  'replies record tools you used then. Prices are in Ds (credits); say what a priced run costs before starting it.',
].join('\n');

/** The assistant's instructions, or an agent skill's own, followed by what every thread agent has (and the computer, when it has one). */
function systemPrompt(skill: Skill | undefined, computer: string | undefined): string {
  const head = skill
    ? [`You are the agent "${skill.name}": ${skill.description}`, '', skill.body]
    : [
        'You are the assistant of Skillet, a service that runs skills (scripts and model-driven agents) for people.',
        'You talk with the people of one workspace in a long-lived thread: help them find the right skill, run it for them,',
        'and read what their runs produced. Answer briefly and plainly.',
      ];
  return [...head, '', '---', TOOLS_NOTE, ...(computer ? ['', computer] : [])].join('\n');
}

/** How the turn ends when no model key reaches a vendor: NO_MODEL_KEY's words, for a thread. */
const NO_KEY = NO_MODEL_KEY.replace('for this skill', 'for this agent');

async function turn(
  ctx: AppContext,
  thread: ThreadRef,
  history: StoredThreadRecord[],
  sink: ThreadSink,
  signal: AbortSignal,
): Promise<Omit<TurnEnding, 'messageId'> & { messageId?: string }> {
  const caller = await threadCaller(ctx, thread);
  if (!caller)
    return { stopReason: 'error', reason: 'The person who wrote to this thread is no longer a member of its workspace' };
  const skill = thread.agentId === ASSISTANT_ID ? undefined : await agentSkill(ctx, thread.workspaceId, thread.agentId);
  if (thread.agentId !== ASSISTANT_ID && !skill) {
    return { stopReason: 'error', reason: `There is no agent ${thread.agentId} in this workspace any more` };
  }
  const account = threadAccount(ctx, thread, caller);
  const models: ModelChoice = skill?.models ?? {};
  const route = routeModel(ctx.config.agent, models, await account.ownModelKey());
  if (!route) return { stopReason: 'error', reason: NO_KEY };
  // The assistant's alone: an agent skill's thread keeps to the workspace tools.
  const computer = skill ? undefined : await offerTurnComputer(ctx, thread, signal);
  const turnSignal = computer?.signal ?? signal;
  try {
    return await runTurnLoop({
      client: clientFor(ctx.config.agent, route),
      route,
      settings: ctx.config.agent,
      system: systemPrompt(skill, computer?.prompt),
      turns: conversationOf(history),
      tools: computer ? [...THREAD_TOOL_SPECS, ...computer.specs] : THREAD_TOOL_SPECS,
      runTool: (call) =>
        computer?.handles(call.name)
          ? computer.run(call)
          : runThreadTool(call, { ctx, caller, thread, sink, signal: turnSignal }),
      account,
      sink,
      signal: turnSignal,
    });
  } finally {
    await computer?.close();
  }
}

/**
 * Runs one turn of the thread's agent over its history (DESIGN §13): the model's answers
 * as agent.chunk and agent.message records, its tool calls as tool.result records, and
 * always, last, one agent.turn_end, also when the turn fails, is stopped or runs out of
 * credits. A failure inside the service is logged and told to the thread without its
 * message, which may carry internals.
 */
export async function runThreadTurn(
  ctx: AppContext,
  thread: ThreadRef,
  history: StoredThreadRecord[],
  sink: ThreadSink,
  signal: AbortSignal,
): Promise<void> {
  let ending: Omit<TurnEnding, 'messageId'> & { messageId?: string };
  try {
    ending = await turn(ctx, thread, history, sink, signal);
  } catch (error) {
    if (signal.aborted) ending = { stopReason: 'error', reason: abortedReason(signal) };
    else {
      ctx.log.error({ err: error, thread: thread.id }, 'thread turn failed');
      ending = { stopReason: 'error', reason: 'The turn failed inside the service' };
    }
  }
  const { stopReason, reason, messageId = randomUUID() } = ending;
  await sink.append([{ type: 'agent.turn_end', messageId, stopReason, ...(reason === undefined ? {} : { reason }) }]);
}
