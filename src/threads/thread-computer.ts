import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { AppContext } from '../context.js';
import type { ToolSpec } from '../models/conversation.js';
import type { RunGroup } from '../ports/sandbox.js';
import type { ThreadRef } from '../ports/thread-records.js';
import { RunOverLimit } from '../runtime/agent/agent-loop.js';
import { toolLabel } from '../runtime/agent/tools.js';
import { WEB_FETCH_SPEC, webFetch } from '../runtime/agent/web-fetch.js';
import { assistantComputerPrompt, installedSoftware } from '../runtime/computer/computer-prompt.js';
import { COMPUTER_TOOL_NAMES, COMPUTER_TOOL_SPECS, runComputerTool } from '../runtime/computer/computer-tools.js';
import { reportKill } from '../runtime/script/script-exit.js';
import { computerMissing } from '../sandbox/computer/computer-availability.js';
import { computerLimits } from '../sandbox/computer/computer-memory.js';
import type { RunComputer } from '../sandbox/computer/computer-session.js';
import { openComputer } from '../sandbox/computer/open-computer.js';
import { ToolRefused } from '../sandbox/confined-files.js';
import { type EgressPolicy, egressPolicyOf } from '../sandbox/egress/egress-policy.js';
import { breachReason } from '../sandbox/limit-breach.js';
import { openRunGroup } from '../sandbox/watched-child.js';
import { workspaceSkills } from './thread-agent-skills.js';
import type { ThreadToolOutcome } from './thread-tools.js';

/** What the computer's tools went over, in the turn's ending. */
const SUBJECT = "the assistant's computer";
const GO_ON = 'Send another message to go on: the next turn starts a fresh computer.';

interface Opened {
  computer: RunComputer;
  group: RunGroup | undefined;
}

/**
 * The threads assistant's computer for one turn (DESIGN §13, §14): started on the turn's
 * first computer tool call, so a turn that never uses it costs nothing, and closed when the
 * turn ends, with everything written in it. It shows every skill the workspace can run read
 * only at /mnt/skills/<slug>/, stands in a control group of its own with the run limits
 * (the computer's memory, processes, CPU, and the run time from its start) and on a bounded
 * space, and has no uploads; its outputs folder is scratch. A limit it goes over ends the
 * turn, but for memory: the kernel stops the one process that passed it, and the call says so.
 */
export class TurnComputer {
  /** The turn's signal, also aborted when the computer goes over a limit: the turn runs on it. */
  readonly signal: AbortSignal;
  readonly specs: ToolSpec[];
  readonly prompt: string;
  readonly #ctx: AppContext;
  readonly #thread: ThreadRef;
  readonly #policy: EgressPolicy;
  readonly #overLimit = new AbortController();
  #opening: Promise<Opened> | undefined;
  #stopClock: (() => void) | undefined;
  #closed = false;

  constructor(ctx: AppContext, thread: ThreadRef, signal: AbortSignal, installed: readonly string[]) {
    this.#ctx = ctx;
    this.#thread = thread;
    this.#policy = egressPolicyOf(ctx.config);
    this.signal = AbortSignal.any([signal, this.#overLimit.signal]);
    const web = this.#policy.allowedHosts.length > 0;
    this.specs = [...COMPUTER_TOOL_SPECS, ...(web ? [WEB_FETCH_SPEC] : [])];
    this.prompt = assistantComputerPrompt(installed, this.#policy.allowedHosts);
    // A stopped turn or a limit kills what the shell is running now, not at the call's end.
    const closeSession = () =>
      void this.#opening?.then(
        (opened) => opened.computer.session.close(),
        () => undefined,
      );
    this.signal.addEventListener('abort', closeSession, { once: true });
  }

  handles(name: string): boolean {
    return this.specs.some((spec) => spec.name === name);
  }

  /** Runs one computer tool call; refusals and failing commands are answers the model reads. */
  async run(call: { name: string; input: Record<string, unknown> }): Promise<ThreadToolOutcome> {
    const summary = toolLabel(call);
    const failed = (output: string): ThreadToolOutcome => ({ output, isError: true, status: 'error', summary });
    if ('_invalid_json' in call.input) return failed(`The input for ${call.name} was not a JSON object; send it again.`);
    try {
      const output =
        call.name === WEB_FETCH_SPEC.name
          ? await webFetch(call.input, this.#policy, this.signal)
          : await this.#computerTool(call.name, call.input);
      return { output, isError: false, status: 'ok', summary };
    } catch (error) {
      if (this.signal.aborted) throw this.signal.reason ?? error;
      if (error instanceof ToolRefused) return failed(error.message);
      this.#ctx.log.error({ err: error, tool: call.name, thread: this.#thread.id }, "the assistant's computer failed");
      return failed('The computer failed inside the service; go on without it, or try again in a new message.');
    }
  }

  async #computerTool(name: string, input: Record<string, unknown>): Promise<string> {
    if (!COMPUTER_TOOL_NAMES.includes(name)) throw new ToolRefused(`There is no tool ${name}.`);
    const { computer, group } = await this.#started();
    // The assistant's tool results are words: a picture it reads is described, not shown.
    const result = await runComputerTool(name, input, {
      computer: computer.session,
      bashPrefixes: [],
      ...(group
        ? {
            checkLimits: () => this.#checkLimits(group),
            memory: { limitMb: this.#limits().memoryMb, answerKills: () => group.answerMemoryKills() },
          }
        : {}),
    });
    return result.text;
  }

  #started(): Promise<Opened> {
    if (this.#closed || this.signal.aborted) return Promise.reject(new ToolRefused('The turn was stopped.'));
    this.#opening ??= this.#open().catch((error: unknown) => {
      // A computer that could not be made is tried again on the next call, not refused for the turn.
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  /** The run limits, with the computer's memory. */
  #limits() {
    const executions = this.#ctx.config.executions;
    return computerLimits(executions, executions.computerMemoryMb);
  }

  async #open(): Promise<Opened> {
    const ctx = this.#ctx;
    const limits = this.#limits();
    let group: RunGroup | undefined;
    try {
      group = await openRunGroup(ctx.sandbox.cgroups, limits);
      const skills = (await workspaceSkills(ctx, this.#thread.workspaceId)).map(({ slug, dir }) => ({ slug, dir }));
      // Under scratch/, so a server killed mid-turn has it unmounted and removed at its next start.
      const plan = {
        spaceDir: path.join(ctx.config.dataDir, 'scratch', `${randomUUID()}-space`),
        skills,
        outputDir: undefined,
        uploadsDir: undefined,
      };
      const computer = await openComputer(ctx, plan, group);
      await computer.claim(`thread:${this.#thread.id}`).catch(async (error: unknown) => {
        await computer.release();
        throw error;
      });
      const stop = ctx.clock.every(limits.timeoutMs, () => {
        stop();
        this.#overLimit.abort(new RunOverLimit(`${SUBJECT} ran longer than its limit of ${limits.timeoutMs} ms. ${GO_ON}`));
      });
      this.#stopClock = stop;
      return { computer, group };
    } catch (error) {
      await group?.remove();
      ctx.log.error({ err: error, thread: this.#thread.id }, "the assistant's computer could not be made");
      throw new ToolRefused(
        'The computer could not be started on this server just now. Go on without it, or try again in a new message.',
      );
    }
  }

  /** Reads the group's counters: a breach ends the turn (through its signal) before the model is asked again. */
  async #checkLimits(group: RunGroup): Promise<void> {
    const breach = await group.breach({ memory: false });
    if (!breach || this.#overLimit.signal.aborted) return;
    // The server's own limits object: the metrics tell their server's kills by it.
    reportKill(breach.limit, this.#ctx.config.executions);
    this.#overLimit.abort(new RunOverLimit(`${breachReason(breach, this.#limits(), SUBJECT)}. ${GO_ON}`));
  }

  /** Ends the sandbox and removes its group, space and network: nothing of the turn's computer is left. */
  async close(): Promise<void> {
    this.#closed = true;
    const opened = await this.#opening?.catch(() => undefined);
    // After the opening settled: a computer still starting at the close has its clock by then.
    this.#stopClock?.();
    if (!opened) return;
    opened.computer.session.close();
    try {
      await opened.group?.remove();
      await opened.computer.release();
    } catch (error) {
      // The turn's answer stands; what is left is cleared at the server's next start (recoverArtifacts, clearLeftovers).
      this.#ctx.log.error({ err: error, thread: this.#thread.id }, "the assistant's computer was not cleared away");
    }
  }
}

/**
 * The assistant's computer for a turn, where this server can give one: bubblewrap and
 * control of cgroups, as agent runs need. Elsewhere the assistant works without it.
 */
export async function offerTurnComputer(
  ctx: AppContext,
  thread: ThreadRef,
  signal: AbortSignal,
): Promise<TurnComputer | undefined> {
  if (computerMissing(ctx.sandbox)) return undefined;
  return new TurnComputer(ctx, thread, signal, await installedSoftware(ctx.sandbox));
}
