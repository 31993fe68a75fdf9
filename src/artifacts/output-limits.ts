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
