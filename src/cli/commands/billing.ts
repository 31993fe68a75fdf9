import type { Command } from 'commander';
import type { SkilletClient } from '../../sdk/client.js';
import type { Checkout, SubscriptionStatus } from '../../sdk/types.js';
import { printJson, printTable, wantsJson } from '../output.js';
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

/** A moment as a person reads it in a terminal: the day and the minute, in UTC. */
const moment = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function subscriptionWords(status: SubscriptionStatus): string {
  if (!status.subscribed || status.paidUntil === null) {
    return 'You have no Based subscription. Start one with `skillet subscribe`.';
  }
  return status.renews
    ? `You are on Based, paid until ${moment(status.paidUntil)}; it renews every month. Stop it with \`skillet subscription cancel\`.`
    : `You are on Based until ${moment(status.paidUntil)}. The subscription is cancelled and will not renew.`;
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

  const subscription = program
    .command('subscription')
    .description('show your Based subscription: whether it renews, and until when it is paid')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const status = await (await signedInClient(global())).billing.subscription();
      if (options.json) return printJson(status);
      process.stdout.write(`${subscriptionWords(status)}\n`);
    });

  subscription
    .command('cancel')
    .description('stop your Based subscription from renewing; what you paid for runs to its end')
    .option('--json', 'print the answer as JSON')
    .action(async (_options: unknown, command: Command) => {
      const status = await (await signedInClient(global())).billing.cancelSubscription();
      if (wantsJson(command)) return printJson(status);
      const until = status.paidUntil === null ? '' : ` You keep Based and its credits until ${moment(status.paidUntil)}.`;
      process.stdout.write(`Cancelled: your subscription will not renew.${until}\n`);
    });

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
