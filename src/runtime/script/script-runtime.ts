import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { RunUploads } from '../../ports/runs.js';
import type { LimitBreach, SkillSandbox } from '../../ports/sandbox.js';
import type { Skill } from '../../ports/skills.js';
import { breachReason } from '../../sandbox/limit-breach.js';
import { ENABLE_SANDBOX_HINT } from '../../sandbox/sandbox.js';
import { skillCommand, UPLOADS_FOLDER } from '../../sandbox/skill-command.js';
import { type RunLimits, SkillRefused } from '../../sandbox/types.js';
import { inspectOutput } from '../../sandbox/watchdog.js';
import {
  openRunGroup,
  signalOfExit,
  spawnWatched,
  type WatchedChild,
  watchChild,
  watchedLimits,
} from '../../sandbox/watched-child.js';
import { parseSkillMessage, type SkillMessage } from '../protocol.js';
import { boundedLines, LineTooLong } from '../protocol-lines.js';
import type { RunOutcome, RunResult, RuntimeServices, SkillRuntime, WarmScript } from '../runtime.js';
import { isWarmScript } from '../runtime.js';
import { IdlePipes } from './idle-pipes.js';
import { exitReason, limitOfExit, reportKill } from './script-exit.js';

interface ScriptRun {
  finished: Promise<RunOutcome>;
  /** Kills the child; the run ends as stopped (an interrupt or a cancel). */
  stop(): void;
}

const STDERR_KEPT = 2048;

/** What one streamed event costs beyond its line: its row, its frame, its announcement. */
const EVENT_OVERHEAD_BYTES = 100;

/** Messages handed on and not yet stored, at most: the backlog a fast-printing skill can build. */
const MESSAGES_IN_FLIGHT = 64;

/**
 * Shows the run's files as ./uploads/ of its working folder. With bubblewrap, an empty
 * folder there is the mount point of a read-only bind of theirs. Without it (built-in
 * skills, or SKILL_SANDBOX=none) it is a link to their folder: Node's permission model does
 * not stop writes through a link, but the folder holds the run's own copies and is removed
 * with the run, so nothing beyond the run is at stake. Either way the output folder's
 * watch and the artifact never count what is in it: a mount point seen from outside is
 * empty, and links are not followed.
 */
async function showUploads(sandbox: SkillSandbox, outputDir: string, uploads: RunUploads): Promise<void> {
  const place = path.join(outputDir, UPLOADS_FOLDER);
  if (sandbox.kind === 'bwrap') await mkdir(place);
  else await symlink(uploads.dir, place, 'dir');
}

/**
 * Runs a script skill in a child process confined by `sandbox` (see sandbox.ts and
 * skill-command.ts). It gets no environment, so no server secret reaches it. Every limit
 * is enforced while it runs, and every kill names the limit. Messages are handed to
 * `onMessage` one at a time, in order.
 */
export async function startScript(
  skill: Skill,
  input: string,
  outputDir: string,
  options: { limits: RunLimits; sandbox: SkillSandbox; uploads?: RunUploads | undefined; warm?: WarmScript | undefined },
  onMessage: (message: SkillMessage) => Promise<void>,
): Promise<ScriptRun> {
  const { limits, sandbox, uploads, warm } = options;
  if (!skill.builtIn && !sandbox.runsUntrusted) {
    throw new SkillRefused(
      `the skill sandbox is not available on this server, so only built-in skills run; to enable it, ${ENABLE_SANDBOX_HINT}`,
    );
  }
  await mkdir(outputDir, { recursive: true });
  if (uploads) await showUploads(sandbox, outputDir, uploads);
  const watched = watchedLimits(limits, outputDir);
  const group = warm ? warm.group : await openRunGroup(sandbox.cgroups, limits);
  const watch = {
    cwd: outputDir,
    env: {},
    timeoutMs: limits.timeoutMs,
    watched,
    setpriv: sandbox.setpriv,
    seccompFile: sandbox.seccompFile,
    ...(group ? { group } : {}),
  };
  const reasons = {
    timedOut(): RunOutcome {
      reportKill('time', limits);
      return { kind: 'failed', reason: `the skill ran past its time limit of ${limits.timeoutMs} ms` };
    },
    breached(breach: LimitBreach): RunOutcome {
      reportKill(breach.limit, limits);
      return { kind: 'failed', reason: breachReason(breach, limits) };
    },
  };
  let run: WatchedChild<RunOutcome>;
  if (warm) {
    run = watchChild(warm.child, watch, reasons);
  } else {
    const entry = path.join(skill.dir, skill.entry ?? '');
    const command = skillCommand(sandbox, { skillDir: skill.dir, entry, outputDir, uploadsDir: uploads?.dir }, limits);
    run = spawnWatched(command, watch, reasons);
  }
  const { child } = run;
  const end = (outcome: RunOutcome) => run.kill(outcome);

  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  child.stdin.on('error', () => undefined); // a child that exits before reading its input
  // A warm sandbox's harness waits for its entry, on the input's first line.
  child.stdin.end(warm ? `${warm.entry}\n${input}` : input);

  // A warm child may have ended before this run took it: its close was heard from its spawn on.
  const exited =
    warm?.closed ??
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
  const idle = new IdlePipes(() => {
    child.stdout.destroy();
    child.stderr.destroy();
  });
  if (child.exitCode !== null || child.signalCode !== null) idle.watch();
  else child.once('exit', () => idle.watch());
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));

  // The service could not take a message (its database refused it). Leaving the loop cuts
  // the skill's pipe, and the skill would die of it and take the blame: the run is the
  // service's failure, and the skill is stopped now.
  const notStored = (error: unknown) =>
    end({ kind: 'failed', reason: `the run broke inside the service: ${(error as Error).message}`, fault: 'service' });
  // Lines are handed on without waiting for each to be stored, so that those a skill prints
  // while a write is under way are stored together; past this many unstored, reading waits.
  const inFlight: Promise<void>[] = [];
  /** Hands a message on; false once the oldest unstored one, waited for, could not be stored. */
  const handOn = async (message: SkillMessage): Promise<boolean> => {
    const handled = onMessage(message);
    handled.catch(() => undefined); // waited for in order, below or when the relay ends
    inFlight.push(handled);
    const oldest = inFlight.length > MESSAGES_IN_FLIGHT ? inFlight.shift() : undefined;
    return (
      oldest === undefined ||
      oldest.then(
        () => true,
        (error: unknown) => {
          notStored(error);
          return false;
        },
      )
    );
  };
  const relay = async (): Promise<void> => {
    try {
      await relayLines();
    } finally {
      // Every message handed on is stored, or has failed, before the run may end.
      const failure = (await Promise.allSettled(inFlight)).find((result) => result.status === 'rejected');
      if (failure) notStored(failure.reason);
    }
  };
  const relayLines = async (): Promise<void> => {
    let eventBytes = 0;
    for await (const line of idle.lines(boundedLines(child.stdout, limits.lineLimitBytes))) {
      if (run.killedFor) return;
      if (line.trim() === '') continue;
      eventBytes += Buffer.byteLength(line) + EVENT_OVERHEAD_BYTES;
      if (eventBytes > limits.eventBytesPerRun) {
        reportKill('event-bytes', limits);
        return end({
          kind: 'failed',
          reason: `the skill sent more than its limit of ${limits.eventBytesPerRun} bytes of events`,
        });
      }
      const message = parseSkillMessage(line);
      if (!message) {
        return end({
          kind: 'failed',
          reason: `the skill printed something that is not a protocol message: ${line.slice(0, 120)}`,
        });
      }
      if (!(await handOn(message))) return;
    }
  };

  const ended = async (): Promise<RunOutcome> => {
    try {
      await relay();
    } catch (error) {
      if (error instanceof LineTooLong) {
        if (!run.killedFor) reportKill('line-length', limits);
        end({ kind: 'failed', reason: `the skill sent a protocol line longer than its limit of ${limits.lineLimitBytes} bytes` });
      } else if (!child.stdout.destroyed) {
        throw error;
      }
      // Otherwise the pipe was cut after the process exited (PIPE_GRACE_MS): the run is over.
    } finally {
      idle.stop();
    }
    const result = await Promise.race([exited, spawnFailed]);
    run.unwatch();
    if (result instanceof Error)
      return { kind: 'failed', reason: `the skill could not start: ${result.message}`, fault: 'service' };
    if (run.killedFor) return run.killedFor;
    // A last look at the counters and the output: a kill or files after the last tick.
    const breach = (await group?.breach()) ?? (await inspectOutput(watched));
    if (breach) {
      reportKill(breach.limit, limits);
      return { kind: 'failed', reason: breachReason(breach, limits) };
    }
    const signal = signalOfExit(result.code, result.signal, sandbox.kind === 'bwrap');
    const exitLimit = result.code === 0 ? undefined : limitOfExit(signal, stderr);
    if (exitLimit) reportKill(exitLimit, limits);
    if (result.code !== 0) return { kind: 'failed', reason: exitReason(signal ? null : result.code, signal, stderr, limits) };
    return { kind: 'completed' };
  };
  const finished = ended().finally(() => (warm ? warm.release() : group?.remove()));

  return { finished, stop: () => end({ kind: 'stopped' }) };
}

/** A script uses no model, so its runs use no tokens. */
const NO_TOKENS = { input_tokens: 0, output_tokens: 0 };

/** The script runtime behind the runtime seam: the skill's result line becomes the run's summary. */
export function scriptRuntime(services: RuntimeServices): SkillRuntime {
  return {
    async start({ skill, input, outputDir, uploads, limits, signal, onMessage, warm }) {
      let summary = '';
      const options = { limits, sandbox: services.sandbox, uploads, warm: isWarmScript(warm) ? warm : undefined };
      const script = await startScript(skill, input, outputDir, options, async (message) => {
        if (message.type === 'result') summary = message.summary;
        else await onMessage(message);
      });
      const stop = () => script.stop();
      signal.addEventListener('abort', stop, { once: true });
      if (signal.aborted) stop();
      const finished = script.finished
        .then((outcome): RunResult => ({ outcome, tokenUsage: NO_TOKENS, summary }))
        .finally(() => signal.removeEventListener('abort', stop));
      return { finished };
    },
  };
}
