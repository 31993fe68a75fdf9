import { boundedUsage, outputSpace, PAGE_BYTES } from './run-space.js';

/**
 * A run's output was over one of its limits when it was collected. The run fails with these
 * words and keeps nothing: the kernel's bound on the output folder leaves room past the
 * limits (a page per allowed file, and one entry more) so that going over can be named, and
 * only this check holds the limits themselves exactly.
 */
export class OutputOverLimit extends Error {}

interface OutputLimits {
  outputLimitBytes: number;
  outputFileLimit: number;
}

const WHAT_NEXT = 'so nothing was kept. Write less to the outputs folder and run it again';

/** Throws when `entries` files and folders are more than the output may hold. */
export function checkOutputEntries(entries: number, limits: OutputLimits): void {
  if (entries <= limits.outputFileLimit) return;
  throw new OutputOverLimit(
    `the run's output holds ${entries} files and folders, more than its limit of ${limits.outputFileLimit} ` +
      `(SKILL_OUTPUT_FILE_LIMIT), ${WHAT_NEXT}.`,
  );
}

/** Throws when `bytes` of files are more than the output may hold. */
export function checkOutputBytes(bytes: number, limits: OutputLimits): void {
  if (bytes <= limits.outputLimitBytes) return;
  throw new OutputOverLimit(
    `the run's output holds ${bytes} bytes, more than its output limit of ${limits.outputLimitBytes} bytes ` +
      `(SKILL_OUTPUT_LIMIT_BYTES), ${WHAT_NEXT}.`,
  );
}

/**
 * Words for the model when the outputs folder is over a limit now, read after each computer
 * call so it can shrink the folder before the run ends (when the limits are held). One statfs
 * answers, whatever the run wrote: the entries it counts, and the pages its files take, less
 * the page a file may round up to each, which is less than the files' bytes. An output over
 * its byte limit by less than that rounding is not told here; the check at the end holds it.
 * Undefined when within the limits, or when the folder is not bounded (the server may not
 * mount): then only the check at the end holds them.
 */
export async function outputOverNote(dir: string, limits: OutputLimits): Promise<string | undefined> {
  const bounded = await boundedUsage(
    dir,
    outputSpace({ outputBytes: limits.outputLimitBytes, outputFiles: limits.outputFileLimit }),
  );
  if (!bounded) return undefined;
  const fix = 'remove some from /mnt/session/outputs/ before you finish, or the run fails and keeps nothing.';
  if (bounded.files > limits.outputFileLimit) {
    return `Note: the outputs folder holds ${bounded.files} files and folders, more than its limit of ${limits.outputFileLimit}; ${fix}`;
  }
  const atLeast = bounded.bytes - bounded.files * PAGE_BYTES;
  if (atLeast <= limits.outputLimitBytes) return undefined;
  return `Note: the outputs folder holds more than ${atLeast} bytes, over its limit of ${limits.outputLimitBytes} bytes; ${fix}`;
}
