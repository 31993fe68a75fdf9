import { loadavg } from 'node:os';

/** A change of the one-minute load average past this, during a suite, marks its figures noisy. */
const NOISY_CHANGE = 1;

/**
 * Runs one suite between two readings of the machine's load average and prints both: these
 * machines are shared, and a ratio measured while something else started or stopped is noise.
 */
export async function withLoadReadings(name: string, suite: () => Promise<void>): Promise<void> {
  const before = loadavg()[0] ?? 0;
  await suite();
  const after = loadavg()[0] ?? 0;
  const noisy = Math.abs(after - before) > NOISY_CHANGE;
  const verdict = noisy ? 'noisy: the machine was busier or quieter at the end; run it again' : 'steady';
  console.log(`\nLoad average (1 min) around ${name}: ${before.toFixed(2)} before, ${after.toFixed(2)} after (${verdict})`);
}
