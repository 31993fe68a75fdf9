import type { Command } from 'commander';
import type { Checkout, SkilletClient } from '../../sdk/client.js';
import { printJson, printTable } from '../output.js';
import { type GlobalOptions, signedInClient } from '../session.js';
import { openInBrowser } from './account.js';

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * Starts a hosted checkout (a pack or the subscription) that returns to the server's own
 * return pages, prints its address and opens it; `after` says what to expect once paid.
 */
async function checkout(
  global: () => GlobalOptions,
  options: { email?: string; json?: boolean },
  start: (client: SkilletClient, checkout: Checkout) => Promise<{ checkoutUrl: string }>,
  after: string,
): Promise<void> {
  const client = await signedInClient(global());
  const email = options.email ?? (await client.auth.me()).user.email;
  const { checkoutUrl } = await start(client, {
    email,
    successUrl: `${client.baseUrl}/api/v1/billing/return/success`,
    cancelUrl: `${client.baseUrl}/api/v1/billing/return/cancel`,
  });
  if (options.json) return printJson({ checkoutUrl });
  process.stdout.write(`${checkoutUrl}\n`);
  if (await openInBrowser(checkoutUrl)) process.stderr.write('Opened the checkout in your browser.\n');
  process.stderr.write(`${after}\n`);
}

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
      printTable(
        ['PACK', 'CREDITS', 'PRICE'],
        packs.map((pack) => [pack.id, pack.name, dollars(pack.priceCents)]),
      );
    });

  program
    .command('buy <packId>')
    .description('start buying a pack: prints (and opens) the checkout page')
    .option('--email <email>', 'receipt address (default: your account email)')
    .option('--json', 'print {checkoutUrl} as JSON')
    .action((packId: string, options: { email?: string; json?: boolean }) =>
      checkout(
        global,
        options,
        (client, returns) => client.billing.purchase(packId, returns),
        'The credits arrive once the payment goes through; check with `skillet balance`.',
      ),
    );

  program
    .command('subscribe')
    .description('start a Based subscription: prints (and opens) the checkout page')
    .option('--email <email>', 'receipt address (default: your account email)')
    .option('--json', 'print {checkoutUrl} as JSON')
    .action((options: { email?: string; json?: boolean }) =>
      checkout(
        global,
        options,
        (client, returns) => client.billing.subscribe(returns),
        'Based starts once the payment goes through; `skillet balance` shows its credits.',
      ),
    );

  program
    .command('transactions')
    .description('show your 50 most recent transactions')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const { transactions } = await (await signedInClient(global())).billing.transactions();
      if (options.json) return printJson(transactions);
      printTable(
        ['DATE', 'AMOUNT', 'TYPE', 'DESCRIPTION'],
        transactions.map((entry) => [entry.createdAt, `${entry.amount} Ds`, entry.type, entry.description]),
      );
    });
}
