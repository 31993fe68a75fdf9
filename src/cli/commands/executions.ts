import type { Command } from 'commander';
import type { SkilletClient } from '../../sdk/client.js';
import type { ExecutionStatus } from '../../sdk/types.js';
import { canRedraw, EXIT, printJson, printTable, wholeNumber } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The one status in which a run is still going; idle, completed and failed are ends. */
const RUNNING = 'working';

function outputText(status: ExecutionStatus): string {
  return status.outputBlocks.map((block) => block.text).join('\n');
}

function statusText(status: ExecutionStatus): string {
  const output = outputText(status);
  return [
    `${status.executionId}  ${status.skillSlug}  ${status.status}${status.startedAt ? `  started ${status.startedAt}` : ''}`,
    ...(output ? [output] : []),
  ].join('\n');
}

/**
 * Re-reads the status until the run is no longer working. A terminal sees one block
 * redrawn in place; a pipe gets a line per change; --json one JSON line per change.
 */
async function watch(client: SkilletClient, executionId: string, json: boolean, intervalMs: number): Promise<number> {
  const redraw = !json && canRedraw(process.stdout);
  let previous = '';
  let drawnLines = 0;
  for (;;) {
    const status = await client.executions.status(executionId);
    const shown = JSON.stringify(status);
    if (shown !== previous) {
      previous = shown;
      if (json) {
        process.stdout.write(`${shown}\n`);
      } else if (redraw) {
        // Up to the first line drawn last time, and clear from there down.
        if (drawnLines > 0) process.stdout.write(`\x1b[${drawnLines}F\x1b[J`);
        const text = statusText(status);
        process.stdout.write(`${text}\n`);
        drawnLines = text.split('\n').length;
      } else {
        process.stdout.write(`${status.status}\n`);
      }
    }
    // Like `run`: 0 only for a run that completed (an interrupted one ends idle).
    if (status.status !== RUNNING) return status.status === 'completed' ? EXIT.ok : EXIT.runNotCompleted;
    await sleep(intervalMs);
  }
}

export function executionCommands(program: Command, global: () => GlobalOptions): void {
  program
    .command('executions')
    .description('list recent executions')
    .option('--limit <n>', 'how many', wholeNumber('--limit', 1), 10)
    .option('--offset <n>', 'skip this many', wholeNumber('--offset'), 0)
    .option('--channels <list>', 'only these sources, comma-separated')
    .option('--interfaces <list>', 'only these interfaces, comma-separated')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { limit: number; offset: number; channels?: string; interfaces?: string; json?: boolean }) => {
      const history = await (await signedInClient(global())).executions.history({
        limit: options.limit,
        offset: options.offset,
        ...(options.channels ? { channels: options.channels } : {}),
        ...(options.interfaces ? { interfaces: options.interfaces } : {}),
      });
      if (options.json) return printJson(history);
      printTable(
        ['EXECUTION', 'STATUS', 'SKILL', 'COST', 'STARTED'],
        history.items.map((item) => [item.executionId, item.status, item.skillSlug, `${item.cost} Ds`, item.startedAt ?? '-']),
      );
    });

  program
    .command('status <executionId>')
    .description("show an execution's status and output; --watch follows it until the run ends")
    .option('-w, --watch', 'redraw the status until the run ends')
    .option('--interval <ms>', 'how often --watch reads the status', wholeNumber('--interval', 100), 1000)
    .option('--json', 'print the answer as JSON (with --watch, one JSON line per change)')
    .action(async (executionId: string, options: { watch?: boolean; interval: number; json?: boolean }) => {
      const client = await signedInClient(global());
      if (options.watch) {
        process.exitCode = await watch(client, executionId, options.json === true, options.interval);
        return;
      }
      const status = await client.executions.status(executionId);
      if (options.json) return printJson(status);
      process.stdout.write(`${statusText(status)}\n`);
    });

  program
    .command('cancel <executionId>')
    .description('stop a running execution')
    .option('--json', 'print the answer as JSON')
    .action(async (executionId: string, options: { json?: boolean }) => {
      const answer = await (await signedInClient(global())).executions.cancel(executionId);
      if (options.json) return printJson(answer);
      process.stdout.write(`${answer.message} (now ${answer.actualStatus})\n`);
    });
}
