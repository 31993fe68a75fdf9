import type { Command } from 'commander';
import open from 'open';
import ora from 'ora';
import { SkilletClient } from '../../sdk/client.js';
import { CliError, printJson } from '../output.js';
import { baseUrlOf, type GlobalOptions, signedInClient } from '../session.js';
import { forgetCredentials, saveCredentials } from '../settings.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens a page in the person's browser when there is a screen to show it on. */
export async function openInBrowser(url: string): Promise<boolean> {
  if (!process.stdout.isTTY || process.env.CI || process.env.SKILLET_NO_BROWSER) return false;
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  try {
    await open(url);
    return true;
  } catch {
    return false;
  }
}

async function login(global: GlobalOptions, options: { label?: string; browser: boolean }): Promise<void> {
  const client = new SkilletClient({ baseUrl: await baseUrlOf(global) });
  const activation = await client.activation.start(options.label ?? 'skillet-cli');
  process.stderr.write(
    `To connect this terminal, open ${activation.verification_url}\nand enter the code ${activation.user_code}` +
      ` (or open ${activation.verification_url_complete}).\n`,
  );
  if (options.browser && (await openInBrowser(activation.verification_url_complete)))
    process.stderr.write('Opened your browser.\n');
  const spinner = ora({
    text: 'Waiting for approval…',
    stream: process.stderr,
    isEnabled: process.stderr.isTTY,
    isSilent: !process.stderr.isTTY,
  }).start();
  const deadline = Date.now() + activation.expires_in * 1000;
  try {
    while (Date.now() < deadline) {
      await sleep(activation.interval * 1000);
      // The client waits out a 429 (Retry-After) by itself before this returns.
      const result = await client.activation.poll(activation.device_code);
      if (result.status === 'pending') continue;
      if (result.status !== 'approved') throw new CliError(`The code was ${result.status}. Run \`skillet login\` again.`);
      const file = await saveCredentials({
        baseUrl: client.baseUrl,
        apiKey: result.api_key,
        workspace: result.workspace,
        tier: result.tier,
      });
      // Written directly: a silent spinner (no terminal) would swallow its own success line.
      spinner.stop();
      process.stderr.write(
        `Signed in to ${result.workspace.name ?? 'your personal workspace'} (${result.tier}). Key saved in ${file}.\n`,
      );
      return;
    }
    throw new CliError('The code expired before it was approved. Run `skillet login` again.');
  } finally {
    if (spinner.isSpinning) spinner.stop();
  }
}

export function accountCommands(program: Command, global: () => GlobalOptions): void {
  program
    .command('login')
    .description('connect this terminal: approve the shown code in a browser, and an API key is stored')
    .option('--label <label>', 'how this device is named on the approval page')
    .option('--no-browser', 'do not open a browser')
    .action((options: { label?: string; browser: boolean }) => login(global(), options));

  program
    .command('logout')
    .description('forget the stored API key (it stays valid until revoked on the server)')
    .action(async () => {
      process.stderr.write((await forgetCredentials()) ? 'Signed out.\n' : 'Not signed in.\n');
    });

  program
    .command('whoami')
    .description('show the account, workspace and mode of the stored key')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const me = await (await signedInClient(global())).auth.me();
      if (options.json) return printJson(me);
      process.stdout.write(
        `${me.user.email} in ${me.workspace.name ?? 'personal workspace'} (${me.workspace.role}), ${me.tier}\n`,
      );
    });
}
