import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import ora, { type Ora } from 'ora';
import type { SkilletClient } from '../../sdk/client.js';
import { SkilletError } from '../../sdk/errors.js';
import type { ExecutionEvent, HistoryItem, RunResult } from '../../sdk/types.js';
import { CliError, canRedraw, EXIT, printJson } from '../output.js';
import { readAllStdin } from '../prompt.js';
import { type GlobalOptions, signedInClient } from '../session.js';
import { uploadAll } from './files.js';
import { allSkills, skillOf } from './skills.js';

interface RunOptions {
  json?: boolean;
  detach?: boolean;
  wait?: boolean;
  inputFile?: string;
  file: string[];
}

/** DESIGN §15: the input a run given only files works on (the spec keeps input required). */
const FILES_ONLY_INPUT = 'See the attached files';

/** The input: --input-file, else `-` for stdin, else the argument; '' when none was given. */
async function inputOf(argument: string | undefined, options: RunOptions): Promise<string> {
  if (options.inputFile) return readFile(options.inputFile, 'utf8');
  if (argument === '-' || (argument === undefined && !process.stdin.isTTY)) return readAllStdin();
  return argument ?? '';
}

/**
 * A run given no input works on the skill's default input, said on stderr so a script's
 * stdout stays the run's; a skill without one needs input, and that is bad usage
 * (docs/decisions.md, "The CLI").
 */
async function defaultInputOf(client: SkilletClient, slug: string): Promise<string> {
  const skill = await skillOf(client, slug);
  if (skill.defaultInput === null) {
    throw new CliError(
      `${skill.slug} needs input: ${skill.input}\nGive it as an argument, with --input-file, or on stdin (-).`,
      EXIT.usage,
    );
  }
  process.stderr.write(`No input given: running ${skill.slug} on its default input, ${JSON.stringify(skill.defaultInput)}.\n`);
  return skill.defaultInput;
}

function textOf(event: ExecutionEvent): string {
  const content = event.payload.content as { type: string; text?: string }[] | undefined;
  return (content ?? []).map((block) => block.text ?? '').join('');
}

/** How one event reads in a terminal; undefined for those not worth a line. */
function lineFor(event: ExecutionEvent): string | undefined {
  switch (event.type) {
    case 'agent.message':
      return textOf(event);
    case 'agent.tool_use':
      return `  ⚙ ${String(event.payload.label ?? event.payload.name)}`;
    case 'agent.info':
      return `  ℹ ${String(event.payload.message ?? '')}`;
    default:
      return undefined;
  }
}

/**
 * Follows a run to its end. Ctrl-C once sends an interrupt and keeps following until the
 * run stops; a second Ctrl-C leaves at once. Returns the exit code.
 */
async function follow(client: SkilletClient, executionId: string, json: boolean): Promise<number> {
  const live = !json && canRedraw(process.stderr);
  const spinner: Ora = ora({ text: 'Running…', stream: process.stderr, isEnabled: live, isSilent: !live });
  let interrupting = false;
  const onInterrupt = () => {
    if (interrupting) process.exit(130);
    interrupting = true;
    spinner.text = 'Interrupting…';
    process.stderr.write('\nInterrupting the run…\n');
    client.executions
      .interrupt(executionId)
      .catch((error: Error) => process.stderr.write(`Could not interrupt: ${error.message}\n`));
  };
  process.on('SIGINT', onInterrupt);
  let result: Record<string, unknown> | undefined;
  let stopReason = 'unknown';
  try {
    spinner.start();
    for await (const event of client.executions.events(executionId)) {
      if (json) {
        process.stdout.write(`${JSON.stringify(event)}\n`);
      } else {
        const line = lineFor(event);
        if (line !== undefined) {
          spinner.clear();
          process.stdout.write(`${line}\n`);
          spinner.render();
        }
      }
      if (event.type === 'execution.result') result = event.payload;
      if (event.type === 'session.status_idle') stopReason = String((event.payload.stop_reason as { type?: string })?.type);
    }
  } finally {
    spinner.stop();
    process.off('SIGINT', onInterrupt);
  }
  if (!json) await summarize(client, stopReason, result);
  return stopReason === 'end_turn' ? EXIT.ok : EXIT.runNotCompleted;
}

async function summarize(client: SkilletClient, stopReason: string, result: Record<string, unknown> | undefined) {
  if (stopReason !== 'end_turn') {
    process.stderr.write(`The run stopped: ${stopReason}.\n`);
    return;
  }
  const lines = [`Done. Cost: ${Number(result?.cost ?? 0)} Ds.`];
  if (typeof result?.artifactId === 'string') {
    const artifact = await client.artifacts.get(result.artifactId);
    const files = artifact.bundleType ? 'bundle' : artifact.fileType;
    lines.push(`Artifact ${artifact.id} (${files}, ${artifact.contentSize} bytes): skillet artifacts download ${artifact.id}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

const WAIT_POLL_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function busyError(running: HistoryItem): CliError {
  const id = running.executionId;
  return new CliError(
    `A ${running.skillSlug} run is going in this workspace (${id}), and one runs at a time; nothing was started.\n` +
      `Run again with --wait to start once it finishes, follow it with \`skillet status ${id} --watch\`, ` +
      `or stop it with \`skillet cancel ${id}\`.`,
    EXIT.workspaceBusy,
  );
}

const runningNow = async (client: SkilletClient): Promise<HistoryItem | undefined> =>
  (await client.executions.history({ statuses: 'working', limit: 1 })).items[0];

/**
 * Returns once no run is going in the workspace. Without `wait`, a run in the way is an
 * error that names it and the ways on; with it, the wait is said once on stderr.
 */
async function awaitTurn(client: SkilletClient, wait: boolean): Promise<void> {
  let told = false;
  for (let running = await runningNow(client); running !== undefined; running = await runningNow(client)) {
    if (!wait) throw busyError(running);
    if (!told) process.stderr.write(`Waiting for the ${running.skillSlug} run ${running.executionId} to finish…\n`);
    told = true;
    await sleep(WAIT_POLL_MS);
  }
}

const isBusy = (error: unknown) => error instanceof SkilletError && error.code === 'EXECUTION_RUNNING';

/**
 * Creates and starts the run in one call (the input sent once). Another run may have
 * started since the check: with --wait that means waiting again, without it the same words
 * as the check's. The same code also means a limit per user or per server, which keeps
 * its own words.
 */
async function startWhenFree(client: SkilletClient, start: () => Promise<RunResult>, wait: boolean): Promise<RunResult> {
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const running = await runningNow(client);
      if (running === undefined) throw error;
      if (!wait) throw busyError(running);
      await awaitTurn(client, true);
    }
  }
}

/**
 * Refuses --file for a skill that does not read files before anything is uploaded (the
 * server would refuse the run too). An unknown slug is left to the server's own answer.
 */
async function requireTakesFiles(client: SkilletClient, slug: string): Promise<void> {
  const skill = (await allSkills(client)).find((candidate) => candidate.slug === slug);
  if (!skill || skill.takesFiles) return;
  throw new CliError(
    `${skill.name} (${skill.slug}) does not read files, so it cannot be run with --file; nothing was uploaded.\n` +
      'Give it what it should work on as its input instead: an argument, --input-file PATH, or - for stdin.',
    EXIT.usage,
  );
}

/** commander's way to take an option more than once. */
const collect = (value: string, previous: string[]) => [...previous, value];

/**
 * Uploads the files, then creates and starts the run with them. When the server refuses
 * the run, the files just uploaded are deleted again rather than left to expire.
 */
async function runWithFiles(client: SkilletClient, slug: string, input: string, options: RunOptions): Promise<RunResult> {
  const uploaded = await uploadAll(client, options.file);
  const files = uploaded.map((file) => ({ fileId: file.id }));
  try {
    return await startWhenFree(
      client,
      () => client.executions.run(slug, input, { interface: 'cli', files }),
      options.wait === true,
    );
  } catch (error) {
    await Promise.all(uploaded.map((file) => client.files.remove(file.id).catch(() => undefined)));
    throw error;
  }
}

export function runCommands(program: Command, global: () => GlobalOptions): void {
  program
    .command('run <slug> [input]')
    .description('run a skill and stream it live; input from the argument, --input-file, or stdin (-)')
    .option('--file <path>', 'give the run a file to read (repeat for more); it is uploaded first', collect, [])
    .option('--input-file <path>', 'read the input text from a file')
    .option('--json', 'print every event as one JSON line (NDJSON), for scripts')
    .option('--detach', 'start the run, print its execution id, and return')
    .option('--wait', 'when another run is going in the workspace, start once it finishes')
    .action(async (slug: string, argument: string | undefined, options: RunOptions) => {
      const client = await signedInClient(global());
      if (options.file.length > 0) await requireTakesFiles(client, slug);
      const given = await inputOf(argument, options);
      // Only input left out falls back to the default: an empty one given is a slip, said before anything runs.
      if (argument !== undefined && argument !== '-' && given.trim() === '' && options.file.length === 0) {
        throw new CliError(
          'The input given is empty. Type the input, or leave it out to run on the skill’s default input.',
          EXIT.usage,
        );
      }
      const filesOnly = options.file.length > 0 ? FILES_ONLY_INPUT : undefined;
      const input = given.trim() !== '' ? given : (filesOnly ?? (await defaultInputOf(client, slug)));
      // Checked before anything is created, so a refused run leaves nothing behind.
      await awaitTurn(client, options.wait === true);
      const run = await runWithFiles(client, slug, input, options);
      if (options.detach) {
        if (options.json) return printJson({ executionId: run.executionId, webUrl: run.webUrl });
        process.stdout.write(`${run.executionId}\n`);
      }
      // On stderr, so stdout stays the run's: where to watch it, share it or find it later.
      if (!options.json) process.stderr.write(`Run page: ${run.webUrl}\n`);
      if (options.detach) return;
      process.exitCode = await follow(client, run.executionId, options.json === true);
    });

  program
    .command('rerun <executionId> <input>')
    .description('run a completed execution again with new input, and follow it')
    .option('--json', 'print every event as one JSON line')
    .action(async (executionId: string, input: string, options: { json?: boolean }) => {
      const client = await signedInClient(global());
      const rerun = await client.executions.rerun(executionId, input);
      process.exitCode = await follow(client, rerun.executionId, options.json === true);
    });
}
