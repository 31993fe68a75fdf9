import { realpathSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import type { ToolImage, ToolSpec } from '../../models/conversation.js';
import type { RunGroup, SkillSandbox } from '../../ports/sandbox.js';
import { listing, openForWrite, openInside, planWrite, readText, sectioned, ToolRefused } from '../../sandbox/confined-files.js';
import type { EgressPolicy } from '../../sandbox/egress/egress-policy.js';
import { outputOverNote } from '../../sandbox/output-limits.js';
import { runSkillScript } from '../../sandbox/script-sandbox.js';
import type { RunLimits } from '../../sandbox/types.js';
import { folderUsage } from '../../sandbox/watchdog.js';
import {
  COMPUTER_TOOL_NAMES,
  COMPUTER_TOOL_SPECS,
  type ComputerToolContext,
  runComputerTool,
} from '../computer/computer-tools.js';
import { WEB_FETCH_SPEC, webFetch } from './web-fetch.js';

export interface ToolContext {
  skillDir: string;
  outputDir: string;
  /** Names of the tools this skill may use (see agentToolSpecs). */
  allowed: readonly string[];
  sandbox: SkillSandbox;
  limits: RunLimits;
  builtIn: boolean;
  signal: AbortSignal;
  /** The run's control group, when the server has cgroup control: every script of the run starts in it. */
  group?: RunGroup;
  /**
   * Reads the group's counters before the run goes on: a script the kernel killed ends the run
   * (through its signal) before the model is asked again, not a tick later.
   */
  checkLimits?: () => Promise<void>;
  /** The run's computer (DESIGN §14), when its tools were chosen. */
  computer?: ComputerToolContext;
  /** The network policy web_fetch works under, when the operator allows hosts. */
  webPolicy?: EgressPolicy;
}

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

const text = (description: string) => ({ type: 'string', description });
const SPECS: ToolSpec[] = [
  {
    name: 'list_files',
    description:
      "List every file you can read, with its size. Files of the skill's own folder (read only) are listed as " +
      "`skill/<path>`; files of this run's output folder (what you and the skill's scripts wrote) as `output/<path>`. " +
      'Pass these paths to read_file as they are.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'read_file',
    description:
      "Read a text file. `path` is relative: `skill/<path>` for a file of the skill's folder (for example " +
      "skill/references/style.md), `output/<path>` for a file of the run's output. A path with neither prefix is looked " +
      "up in the skill's folder first, then in the output. Files over 64 KB are cut, with a note; binary files are not shown.",
    inputSchema: {
      type: 'object',
      properties: { path: text('e.g. skill/references/style.md or output/report.md') },
      required: ['path'],
    },
  },
  {
    name: 'write_file',
    description:
      "Write a text file into the run's output folder; the output folder becomes the run's result. `path` is relative " +
      'to the output folder (a leading `output/` is accepted); missing folders are created and an existing file is ' +
      "replaced. The skill's folder cannot be written. The output folder has a limit on total bytes and on files.",
    inputSchema: {
      type: 'object',
      properties: { path: text('e.g. report.md or charts/data.csv'), content: text('The whole text of the file') },
      required: ['path', 'content'],
    },
  },
  {
    name: 'run_script',
    description:
      "Run a script from the skill's scripts/ folder: .js and .mjs with Node.js, .py with Python 3, .sh with bash. It " +
      "runs in a sandbox with no network, the skill's folder read only, and the run's output folder as its working " +
      'directory and the only place it can write: files it writes there become part of the output. Returns the exit ' +
      'code, stdout and stderr (each cut to 32 KB). Time, memory and output are limited.',
    inputSchema: {
      type: 'object',
      properties: {
        path: text('The script, relative to the skill folder, e.g. scripts/stats.py'),
        args: { type: 'array', items: { type: 'string' }, description: 'Command-line arguments for the script' },
        stdin: text('Text given to the script on its standard input'),
      },
      required: ['path'],
    },
  },
];
const ALL_SPECS = [...COMPUTER_TOOL_SPECS, WEB_FETCH_SPEC, ...SPECS];
const TOOL_NAMES = ALL_SPECS.map((spec) => spec.name);

/** The specs of the tools named (see chooseToolset), in that order. */
export function agentToolSpecs(names: readonly string[]): ToolSpec[] {
  return names.flatMap((name) => ALL_SPECS.filter((spec) => spec.name === name));
}

/** Text from the model made safe for one short line of a human's screen. */
function shortText(value: string, max = 60): string {
  const clean = value.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

const LABELS: Record<string, [verb: string, what: string]> = {
  read_file: ['Reading', 'a file'],
  write_file: ['Writing', 'a file'],
  run_script: ['Running', 'a script'],
};

const COMPUTER_LABELS: Record<string, [verb: string, key: string]> = {
  bash: ['Running', 'command'],
  read: ['Reading', 'path'],
  write: ['Writing', 'path'],
  edit: ['Editing', 'path'],
  glob: ['Looking for', 'pattern'],
  grep: ['Searching for', 'pattern'],
  web_fetch: ['Fetching', 'url'],
};

/** A short human label for a call, such as "Writing report.md". */
export function toolLabel(call: ToolCall): string {
  if (call.name === 'list_files') return 'Listing files';
  const computer = COMPUTER_LABELS[call.name];
  if (computer) {
    const raw: unknown = (call.input as Record<string, unknown> | null)?.[computer[1]];
    const given = typeof raw === 'string' ? shortText(raw) : '';
    return given ? `${computer[0]} ${given}` : `Using ${call.name}`;
  }
  const label = LABELS[call.name];
  if (!label) return `Using ${shortText(call.name, 40) || 'a tool'}`;
  const raw: unknown = (call.input as Record<string, unknown> | null)?.path;
  const given = typeof raw === 'string' ? shortText(raw.replace(/^(skill|output)\//, '')) : '';
  return `${label[0]} ${given || label[1]}`;
}

function textInput(input: Record<string, unknown>, key: string): string {
  const value = input[key];
  if (typeof value !== 'string') throw new ToolRefused(`\`${key}\` is required and must be a string.`);
  return value;
}

async function readFileTool(input: Record<string, unknown>, context: ToolContext): Promise<string> {
  const raw = textInput(input, 'path');
  const { section, parts } = sectioned(raw);
  const roots =
    section === 'output' ? [context.outputDir] : section === 'skill' ? [context.skillDir] : [context.skillDir, context.outputDir];
  let refusal: unknown;
  for (const root of roots) {
    try {
      const handle = await openInside(root, parts, raw);
      try {
        return await readText(handle, raw);
      } finally {
        await handle.close();
      }
    } catch (error) {
      refusal ??= error;
    }
  }
  throw refusal;
}

async function writeFileTool(input: Record<string, unknown>, context: ToolContext): Promise<string> {
  const raw = textInput(input, 'path');
  const content = textInput(input, 'content');
  const { section, parts } = sectioned(raw);
  if (section === 'skill') throw new ToolRefused("The skill's folder is read only; write into the output folder.");
  const shown = parts.join('/');
  await mkdir(context.outputDir, { recursive: true });
  const root = await realpath(context.outputDir);
  const plan = await planWrite(root, parts, shown);
  const { existing, missing } = plan;

  const bytes = Buffer.byteLength(content);
  const usage = await folderUsage(root);
  const bytesAfter = usage.bytes - (existing?.size ?? 0) + bytes;
  const filesAfter = usage.files + missing.length + (existing ? 0 : 1);
  const { outputLimitBytes, outputFileLimit } = context.limits;
  const over =
    bytesAfter > outputLimitBytes
      ? `${bytesAfter} bytes, over its limit of ${outputLimitBytes}`
      : filesAfter > outputFileLimit
        ? `${filesAfter} files and folders, over its limit of ${outputFileLimit}`
        : undefined;
  if (over) throw new ToolRefused(`Not written: the output folder would hold ${over}.`);
  const handle = await openForWrite(root, plan, shown);
  try {
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return `Wrote ${bytes} bytes to output/${shown}.`;
}

// realpathSync.native: the C library resolves the path in one call, where Node's own
// version makes a JavaScript round per part of it (a list_files turn's largest part).
function realOrGiven(folder: string): string {
  try {
    return realpathSync.native(folder);
  } catch {
    return folder; // not made yet: the listing finds nothing there
  }
}

async function listFilesTool(_input: Record<string, unknown>, context: ToolContext): Promise<string> {
  // Synchronous, like the walks (see listing): a few local system calls, not rounds of the event loop.
  const skill = listing(realpathSync.native(context.skillDir), 'skill');
  const output = listing(realOrGiven(context.outputDir), 'output');
  return ["The skill's folder (read only):", ...skill, '', "The run's output folder:", ...output].join('\n');
}

async function runScriptTool(input: Record<string, unknown>, context: ToolContext): Promise<string> {
  const raw = textInput(input, 'path');
  const { section, parts } = sectioned(raw);
  if (section === 'output') throw new ToolRefused("Only scripts of the skill's scripts/ folder can be run.");
  const args = input.args ?? [];
  const stdin = input.stdin ?? '';
  if (!Array.isArray(args) || !args.every((arg): arg is string => typeof arg === 'string')) {
    throw new ToolRefused('`args` must be an array of strings.');
  }
  if (typeof stdin !== 'string') throw new ToolRefused('`stdin` must be a string.');
  const request = { skillDir: context.skillDir, scriptPath: parts.join('/'), args, stdin, outputDir: context.outputDir };
  const limits = { ...context.limits, builtIn: context.builtIn };
  const result = await runSkillScript(request, context.sandbox, limits, context.signal, context.group);
  await context.checkLimits?.();
  const usage = await folderUsage(context.outputDir);
  const overLimit = usage.bytes > context.limits.outputLimitBytes || usage.files > context.limits.outputFileLimit;
  const text = [
    `exit code: ${result.exitCode ?? 'none (killed)'}`,
    `stdout:\n${result.stdout}`,
    `stderr:\n${result.stderr}`,
    ...(result.note ? [`note: ${result.note}`] : []),
  ].join('\n');
  if (result.exitCode !== 0 || overLimit) throw new ToolRefused(text);
  return text;
}

type Handler = (input: Record<string, unknown>, context: ToolContext) => Promise<string>;
const HANDLERS: Record<string, Handler> = {
  list_files: listFilesTool,
  read_file: readFileTool,
  write_file: writeFileTool,
  run_script: runScriptTool,
};

/** What went wrong, without the server's paths: the errno code, or a generic word. */
function describeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? `the file system answered ${code}` : 'an internal error';
}

/** Runs one tool call for the model. Mistakes and refusals come back as isError; it never throws for them. */
export async function runAgentTool(
  call: ToolCall,
  context: ToolContext,
): Promise<{ output: string; isError: boolean; image?: ToolImage }> {
  const fail = (output: string) => ({ output, isError: true });
  const handler = TOOL_NAMES.includes(call.name) ? HANDLERS[call.name] : undefined;
  const usable = TOOL_NAMES.filter((name) => context.allowed.includes(name)).join(', ') || 'none';
  if (!TOOL_NAMES.includes(call.name))
    return fail(`There is no tool "${shortText(call.name, 80)}". Tools you can use: ${usable}.`);
  if (!context.allowed.includes(call.name))
    return fail(`The tool ${call.name} is not allowed for this skill. Tools you can use: ${usable}.`);
  const input: unknown = call.input;
  if (typeof input !== 'object' || input === null || Array.isArray(input) || '_invalid_json' in input) {
    return fail(`The input for ${call.name} was not a valid JSON object; send it again matching the tool's schema.`);
  }
  if (context.signal.aborted) return fail('The run was stopped.');
  // The loop runs one call at a time, so a write never overlaps a script of the same run.
  try {
    const { computer } = context;
    if (COMPUTER_TOOL_NAMES.includes(call.name)) {
      if (!computer) return fail(`The tool ${call.name} needs the computer, which this run does not have.`);
      const answered = await runComputerTool(call.name, call.input, computer).then(
        ({ text, image }) => ({ output: text, isError: false, ...(image ? { image } : {}) }),
        (error: unknown) => (error instanceof ToolRefused ? fail(error.message) : Promise.reject(error)),
      );
      const over = await outputOverNote(context.outputDir, context.limits);
      return over ? { ...answered, output: `${answered.output}\n${over}` } : answered;
    }
    if (call.name === WEB_FETCH_SPEC.name) {
      if (!context.webPolicy) return fail('web_fetch is not available: this server lets skills reach no hosts.');
      return { output: await webFetch(call.input, context.webPolicy, context.signal), isError: false };
    }
    if (!handler) return fail(`There is no tool "${shortText(call.name, 80)}". Tools you can use: ${usable}.`);
    return { output: await handler(call.input, context), isError: false };
  } catch (error) {
    return fail(error instanceof ToolRefused ? error.message : `${call.name} failed: ${describeFailure(error)}.`);
  }
}
