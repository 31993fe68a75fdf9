import type { ToolImage, ToolSpec } from '../../models/conversation.js';
import type { ComputerAnswer } from '../../sandbox/computer/computer-machine.js';
import { type MemoryKillMoment, memoryKillText } from '../../sandbox/computer/computer-memory.js';
import type { ComputerSession } from '../../sandbox/computer/computer-session.js';
import { ToolRefused } from '../../sandbox/confined-files.js';

/** A bash result is cut to this many characters, with a note, before the model sees it. */
const RESULT_CAP = 30 * 1024;
const DEFAULT_BASH_MS = 120_000;
const MAX_BASH_MS = 600_000;
/** File tools work on one file or one walk: they answer quickly or the computer is hung. */
const FILE_TOOL_MS = 60_000;
/** How often a call's run is checked against its limits while the call works. */
const LIMIT_CHECK_MS = 250;

const text = (description: string) => ({ type: 'string', description });
const whole = (description: string) => ({ type: 'integer', description });

export const COMPUTER_TOOL_SPECS: ToolSpec[] = [
  {
    name: 'bash',
    description:
      "Run a command in this run's bash shell, in a Linux sandbox. The shell lasts the whole run: the working folder, " +
      'exported variables and files carry over from call to call. /workspace is the working folder and home. Returns ' +
      'stdout, stderr and the exit code (a non-zero exit is an error), cut to 30 KB. The command is stopped at ' +
      'timeout_ms (default 120000, at most 600000); the shell lives on.',
    inputSchema: {
      type: 'object',
      properties: { command: text('The command, e.g. python3 script.py'), timeout_ms: whole('Time limit in ms') },
      required: ['command'],
    },
  },
  {
    name: 'read',
    description:
      'Read a text file with line numbers (from line `offset`, at most `limit` lines; 2,000 by default). A relative ' +
      'path is under /workspace.',
    inputSchema: {
      type: 'object',
      properties: {
        path: text('e.g. /mnt/user-data/uploads/notes.txt'),
        offset: whole('First line, from 1'),
        limit: whole('Lines'),
      },
      required: ['path'],
    },
  },
  {
    name: 'write',
    description:
      'Write a whole text file, creating folders as needed and replacing a file that is there. Save results for the ' +
      'user under /mnt/session/outputs/. A relative path is under /workspace.',
    inputSchema: {
      type: 'object',
      properties: { path: text('e.g. /mnt/session/outputs/report.md'), content: text('The whole text of the file') },
      required: ['path', 'content'],
    },
  },
  {
    name: 'edit',
    description:
      'Replace `old_string` with `new_string` in a text file. `old_string` must appear exactly once unless ' +
      'replace_all is true.',
    inputSchema: {
      type: 'object',
      properties: {
        path: text('The file to change'),
        old_string: text('The exact text to replace'),
        new_string: text('The text to put in its place'),
        replace_all: { type: 'boolean', description: 'Replace every occurrence' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  {
    name: 'glob',
    description: 'List files whose path matches a pattern (`**` spans folders), under `path` (default /workspace).',
    inputSchema: {
      type: 'object',
      properties: { pattern: text('e.g. **/*.csv'), path: text('The folder to search, e.g. /mnt/user-data/uploads') },
      required: ['pattern'],
    },
  },
  {
    name: 'grep',
    description:
      'Search text files for lines matching a regular expression, under `path` (a folder or one file; default ' +
      '/workspace), only in files whose name matches `glob` when given. Answers path:line:text.',
    inputSchema: {
      type: 'object',
      properties: { pattern: text('A regular expression'), path: text('Folder or file'), glob: text('e.g. *.py') },
      required: ['pattern'],
    },
  },
];

export const COMPUTER_TOOL_NAMES: readonly string[] = COMPUTER_TOOL_SPECS.map((spec) => spec.name);

export interface ComputerToolResult {
  text: string;
  image?: ToolImage;
}

export interface ComputerToolContext {
  computer: ComputerSession;
  /** For `Bash(python:*)`-style skills: the first words a command may start with (none: any). */
  bashPrefixes: readonly string[];
  /** Reads the run's counters: a breach ends the run (and with it this call) through its signal. */
  checkLimits?: () => Promise<void>;
  /**
   * The computer's memory limit and the kernel's kills under it, where its group has one: a
   * kill stops one process, the call that finds it says so, and the run goes on (issue 49).
   */
  memory?: { limitMb: number; answerKills(): Promise<number> };
}

function cut(value: string): string {
  return value.length > RESULT_CAP ? `${value.slice(0, RESULT_CAP)}\n(cut to its first ${RESULT_CAP} characters)` : value;
}

function notesOf(answer: ComputerAnswer): string[] {
  const notes = Array.isArray(answer.notes) ? answer.notes.filter((note): note is string => typeof note === 'string') : [];
  const restart = 'Note: the computer had stopped and was started again before this call; files are kept, the shell is new.';
  return answer.restarted === true ? [restart, ...notes] : notes;
}

function answerText(answer: ComputerAnswer): string {
  if (typeof answer.error === 'string') throw new ToolRefused([...notesOf(answer), answer.error].join('\n'));
  return [...notesOf(answer), String(answer.text ?? '')].join('\n');
}

/** A read of an image file: the picture, and words for a model whose provider cannot take it. */
function imageResult(answer: ComputerAnswer & { image: string }): ComputerToolResult {
  const bytes = Math.floor((answer.image.length * 3) / 4);
  const text =
    `${String(answer.path)} is an image (${String(answer.mediaType)}, about ${bytes} bytes), attached here where the ` +
    'model can see images; otherwise inspect it with Python (Pillow) through bash.';
  return { text: [...notesOf(answer), text].join('\n'), image: { mediaType: String(answer.mediaType), data: answer.image } };
}

function bashText(answer: ComputerAnswer): { text: string; failed: boolean } {
  if (typeof answer.error === 'string') return { text: answerText(answer), failed: true };
  const stdout = String(answer.stdout ?? '');
  const stderr = String(answer.stderr ?? '');
  const exitCode = typeof answer.exitCode === 'number' ? answer.exitCode : null;
  const output = [...(stdout ? [stdout.replace(/\n$/, '')] : []), ...(stderr ? [`stderr:\n${stderr.replace(/\n$/, '')}`] : [])];
  // The cut keeps the exit code and the notes, which say what was cut.
  const parts = [
    ...(output.length > 0 ? [cut(output.join('\n'))] : []),
    exitCode === null ? 'exit code: none (the command was stopped)' : `exit code ${exitCode}`,
    ...notesOf(answer),
  ];
  return { text: parts.join('\n'), failed: exitCode !== 0 };
}

function firstWord(command: string): string {
  return command.trimStart().split(/\s/, 1)[0] ?? '';
}

function bashInput(input: Record<string, unknown>, context: ComputerToolContext) {
  const { command } = input;
  if (typeof command !== 'string' || command.trim() === '')
    throw new ToolRefused('`command` is required: the shell command to run.');
  const timeout = input.timeout_ms ?? DEFAULT_BASH_MS;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > MAX_BASH_MS) {
    throw new ToolRefused(`\`timeout_ms\` must be a whole number of milliseconds from 1 to ${MAX_BASH_MS}.`);
  }
  const prefixes = context.bashPrefixes;
  if (prefixes.length > 0 && !prefixes.includes(firstWord(command))) {
    throw new ToolRefused(`This skill may run only commands that start with ${prefixes.join(' or ')}.`);
  }
  return { command, timeout };
}

/** Keeps reading the run's counters while a call works, so a limit ends it at once, not after it. */
async function watched<T>(work: Promise<T>, context: ComputerToolContext): Promise<T> {
  const check = context.checkLimits;
  if (!check) return work;
  const timer = setInterval(() => void check(), LIMIT_CHECK_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    await check();
  }
}

/** Kills the kernel made under the memory limit since the last look, worded for `moment`; none: undefined. */
async function memoryKills(context: ComputerToolContext, moment: MemoryKillMoment): Promise<string | undefined> {
  const memory = context.memory;
  if (!memory || (await memory.answerKills()) === 0) return undefined;
  return memoryKillText(moment, memory.limitMb);
}

/**
 * Sends one call to the computer, read against its memory: a process the kernel stopped
 * since the last call is noted in the answer, and one stopped during it is told by the
 * caller (`killedDuring`); the computer's own end is the call's error, naming the limit.
 */
async function callComputer(
  body: Record<string, unknown>,
  answerWithinMs: number,
  context: ComputerToolContext,
): Promise<{ answer: ComputerAnswer; killedDuring: boolean }> {
  const earlier = await memoryKills(context, 'between-calls');
  let answer: ComputerAnswer;
  try {
    answer = await watched(context.computer.call(body, answerWithinMs), context);
  } catch (error) {
    const stopped = error instanceof ToolRefused ? await memoryKills(context, 'computer-stopped') : undefined;
    throw stopped ? new ToolRefused([stopped, ...(earlier ? [earlier] : [])].join('\n')) : error;
  }
  const killedDuring = (await context.memory?.answerKills()) ?? 0;
  return {
    answer: { ...answer, notes: [...(earlier ? [earlier] : []), ...notesOf(answer)], restarted: false },
    killedDuring: killedDuring > 0,
  };
}

/** Runs one computer tool; a refusal or a failing command throws ToolRefused with the text the model reads. */
export async function runComputerTool(
  name: string,
  input: Record<string, unknown>,
  context: ComputerToolContext,
): Promise<ComputerToolResult> {
  const limitMb = context.memory?.limitMb ?? 0;
  if (name === 'bash') {
    const { command, timeout } = bashInput(input, context);
    const { answer, killedDuring } = await callComputer({ op: 'bash', command, timeout_ms: timeout }, timeout, context);
    const result = bashText(answer);
    if (!killedDuring) {
      if (result.failed) throw new ToolRefused(result.text);
      return { text: result.text };
    }
    // A kill the command outlived (one of an earlier command's leftovers, say) is a note; one it died of, its error.
    if (!result.failed) return { text: `${memoryKillText('command-finished', limitMb)}\n${result.text}` };
    throw new ToolRefused(`${memoryKillText('command-stopped', limitMb)}\n${result.text}`);
  }
  const called = await callComputer({ ...input, op: name }, FILE_TOOL_MS, context);
  const notes = called.killedDuring ? [memoryKillText('file-tool', limitMb)] : [];
  const answer: ComputerAnswer = { ...called.answer, notes: [...notes, ...notesOf(called.answer)] };
  if (typeof answer.image === 'string' && typeof answer.error !== 'string')
    return imageResult({ ...answer, image: answer.image });
  return { text: answerText(answer) };
}
