import { type Command, InvalidArgumentError } from 'commander';
import { SkilletError } from '../sdk/errors.js';

/** Exit codes scripts can rely on. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** No credentials, or the server refused them: run `skillet login`. */
  notSignedIn: 3,
  /** 402: buy credits. */
  insufficientCredits: 4,
  /** The run ended without completing (interrupted, failed, out of credits). */
  runNotCompleted: 5,
  /** Another run is going in the workspace (one at a time): wait with --wait, or cancel it. */
  workspaceBusy: 6,
} as const;

/** A failure the CLI explains in its own words, with the exit code that goes with it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/**
 * Whether a line can be redrawn in place (spinners, progress bars, a watched status): a
 * terminal that reports no width (some CI consoles, a bare pty) cannot, and gets plain lines.
 */
export function canRedraw(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && (stream.columns ?? 0) > 0;
}

/** One JSON line, for operator commands whose output scripts read. */
export function printLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** One JSON document ending with a newline: indented for a person at a terminal, compact for a program. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, process.stdout.isTTY ? 2 : undefined)}\n`);
}

/**
 * Whether a subcommand was asked for JSON. `skills show x --json` hands --json to the
 * parent (`skills` has one of its own, and commander reads a parent's options anywhere on
 * the line), so the subcommand asks its parents too.
 */
export function wantsJson(command: Command): boolean {
  return command.optsWithGlobals<{ json?: boolean }>().json === true;
}

/** A usage mistake the CLI finds itself (a bad value): exit code 2, like commander's own. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** A whole number option value, refused as bad usage otherwise. */
export function wholeNumber(name: string, min = 0) {
  return (value: string): number => {
    // commander reports this as bad usage, with the option's name and the usage line.
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`${name} must be a whole number of at least ${min}.`);
    return Number(value);
  };
}

/** Rows under a header row, columns padded to their widest cell; the last column is left ragged. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = [headers, ...rows.map((row) => row.map((cell) => String(cell).replace(/\s+/g, ' ')))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const lines = cells.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Says what went wrong and what to do about it; returns the exit code. */
export function explain(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof SkilletError) {
    if (error.status === 401) {
      process.stderr.write(`The server refused the stored credentials (${error.message}). Run \`skillet login\`.\n`);
      return EXIT.notSignedIn;
    }
    if (error.status === 402) {
      process.stderr.write(`${error.message}\nSee \`skillet packs\`, then \`skillet buy <packId>\`.\n`);
      return EXIT.insufficientCredits;
    }
    // The service's own words are written for people; its code is for programs (--json, the SDK).
    process.stderr.write(`${error.message}\n`);
    return EXIT.failure;
  }
  if (error instanceof TypeError && /fetch failed/.test(error.message)) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    process.stderr.write(`Could not reach the server${cause ? ` (${cause})` : ''}. Check --base-url or SKILLET_URL.\n`);
    return EXIT.failure;
  }
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.failure;
}
