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

/** One JSON line, for operator commands whose output scripts read. */
export function printLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
    process.stderr.write(`${error.code}: ${error.message}\n`);
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
