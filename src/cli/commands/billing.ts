import type { Command } from 'commander';
import { printJson } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';
import { openInBrowser } from './account.js';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function billingCommands(program: Command, global: () => GlobalOptions): void {
  program
    .command('balance')
    .description('show your credits')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const balance = await (await signedInClient(global())).billing.balance();
      if (options.json) return printJson(balance);
      process.stdout.write(
        `${balance.balance} Ds (spent ${balance.totalSpent})${balance.canExecute ? '' : ' — buy a pack to run priced skills'}\n`,
      );
    });

  program
    .command('packs')
    .description('list the credit packs at your price')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const { packs } = await (await signedInClient(global())).billing.packs();
      if (options.json) return printJson(packs);
      for (const pack of packs)
        process.stdout.write(`${pack.id.padEnd(10)} ${pack.name.padEnd(10)} ${dollars(pack.priceCents)}\n`);
    });

  program
    .command('buy <packId>')
    .description('start buying a pack: prints (and opens) the checkout page')
    .option('--email <email>', 'receipt address (default: your account email)')
    .action(async (packId: string, options: { email?: string }) => {
      const client = await signedInClient(global());
      const email = options.email ?? (await client.auth.me()).user.email;
      const { checkoutUrl } = await client.billing.purchase(packId, {
        email,
        successUrl: `${client.baseUrl}/api/v1/billing/return/success`,
        cancelUrl: `${client.baseUrl}/api/v1/billing/return/cancel`,
      });
      process.stdout.write(`${checkoutUrl}\n`);
      if (await openInBrowser(checkoutUrl)) process.stderr.write('Opened the checkout in your browser.\n');
      process.stderr.write('The credits arrive once the payment goes through; check with `skillet balance`.\n');
    });

  program
    .command('transactions')
    .description('show your 50 most recent transactions')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const { transactions } = await (await signedInClient(global())).billing.transactions();
      if (options.json) return printJson(transactions);
      for (const entry of transactions) {
        process.stdout.write(
          `${entry.createdAt}  ${String(entry.amount).padStart(6)} Ds  ${entry.type.padEnd(8)} ${entry.description}\n`,
        );
      }
    });
}
