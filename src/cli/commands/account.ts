import type { Command } from 'commander';
import open from 'open';
import ora from 'ora';
import { SkilletClient } from '../../sdk/client.js';
import { CliError, canRedraw, printJson } from '../output.js';
import { baseUrlOf, type GlobalOptions, signedInClient } from '../session.js';
import { saveCredentials } from '../settings.js';
import { type LogoutOptions, logout } from './logout.js';

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

/** The billing modes in plain words, as `login` and `whoami` say them. */
const MODE_WORDS: Record<string, string> = {
  paygmode: 'pay as you go',
  byokmode: 'bring your own key',
  basedmode: 'Based subscription',
  sitelicense: 'site license',
};
export const modeInWords = (tier: string) => MODE_WORDS[tier] ?? tier;

interface LoginOptions {
  label?: string;
  browser: boolean;
  json?: boolean;
}

async function login(global: GlobalOptions, options: LoginOptions): Promise<void> {
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
    isEnabled: canRedraw(process.stderr) && !options.json,
    isSilent: !process.stderr.isTTY || options.json === true,
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
      spinner.stop();
      // The account by its email: the activation answer names only the workspace.
      const me = await new SkilletClient({ baseUrl: client.baseUrl, apiKey: result.api_key }).auth.me();
      if (options.json) {
        return printJson({ email: me.user.email, mode: me.tier, workspace: me.workspace, credentialsFile: file });
      }
      // Written directly: a silent spinner (no terminal) would swallow its own success line.
      process.stderr.write(
        `Signed in as ${me.user.email} (${modeInWords(me.tier)}), in ${me.workspace.name ?? 'your personal workspace'}.` +
          ` Key saved in ${file}.\n`,
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
    .option('--json', 'print the account as JSON once signed in')
    .action((options: LoginOptions) => login(global(), options));

  program
    .command('logout')
    .description('revoke the stored API key on its server, then forget it here (offline: forgets it, and says so)')
    .option('--json', 'print the outcome as JSON')
    .action((options: LogoutOptions) => logout(options));

  program
    .command('whoami')
    .description('show the account, workspace and mode of the stored key')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const me = await (await signedInClient(global())).auth.me();
      if (options.json) return printJson(me);
      process.stdout.write(
        `${me.user.email} in ${me.workspace.name ?? 'personal workspace'} (${me.workspace.role}), ${modeInWords(me.tier)}\n`,
      );
    });
}
