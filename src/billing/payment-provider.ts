import Stripe from 'stripe';
import type { Config } from '../config.js';
import { ServiceUnavailable } from '../errors.js';
import type { CheckoutRequest, CreatedCheckout, PaymentProvider } from '../ports/payments.js';
import { deriveKey, randomBase64Url } from '../secrets.js';

class StripeProvider implements PaymentProvider {
  readonly name = 'stripe';
  readonly isTestMode: boolean;
  readonly startupWarning = undefined;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  readonly #stripe: Stripe;

  constructor(settings: NonNullable<Config['billing']['stripe']>) {
    const api = new URL(settings.apiUrl);
    this.#stripe = new Stripe(settings.secretKey, {
      host: api.hostname,
      port: api.port || (api.protocol === 'https:' ? 443 : 80),
      protocol: api.protocol === 'https:' ? 'https' : 'http',
      maxNetworkRetries: 1,
      telemetry: false,
    });
    this.isTestMode = settings.secretKey.startsWith('sk_test_');
    this.publishableKey = settings.publishableKey;
    this.webhookSecret = settings.webhookSecret;
  }

  async createCheckout(request: CheckoutRequest): Promise<CreatedCheckout> {
    const recurring = request.kind === 'subscription' ? { recurring: { interval: 'month' as const } } : {};
    const session = await this.#stripe.checkout.sessions.create({
      mode: request.kind === 'subscription' ? 'subscription' : 'payment',
      line_items: [
        {
          quantity: 1,
          price_data: { currency: 'usd', unit_amount: request.priceCents, product_data: { name: request.name }, ...recurring },
        },
      ],
      customer_email: request.email,
      client_reference_id: request.userId,
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
    });
    if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
    return { provider: this.name, sessionId: session.id, checkoutUrl: session.url };
  }

  async cancelSubscription(reference: string): Promise<void> {
    // At the period's end rather than now: the month was paid for.
    await this.#stripe.subscriptions.update(reference, { cancel_at_period_end: true });
  }
}

/**
 * The local checkout: sessions are ours, and the page at /billing/checkout/:id settles them.
 * Its Pay button grants credits for nothing, which is what a local install wants and what an
 * operator must know: hence the warning.
 */
class LocalProvider implements PaymentProvider {
  readonly name = 'local';
  readonly isTestMode = true;
  readonly startupWarning =
    'Test-mode checkout is on (no STRIPE_SECRET_KEY): anyone who can reach this server can grant themselves credits ' +
    'by pressing Pay on its own checkout page. Set STRIPE_SECRET_KEY to take payments, or SKILLET_ENV=production to refuse them.';
  readonly publishableKey = 'pk_test_local';
  readonly webhookSecret: string;
  readonly #baseUrl: string;

  constructor(config: Config) {
    this.webhookSecret = `whsec_${deriveKey(config.signingSecret, 'local-checkout-webhook').toString('hex')}`;
    this.#baseUrl = config.publicUrl;
  }

  async createCheckout(): Promise<CreatedCheckout> {
    const sessionId = `cs_local_${randomBase64Url(18)}`;
    return { provider: this.name, sessionId, checkoutUrl: `${this.#baseUrl}/billing/checkout/${sessionId}` };
  }

  /** The local checkout never bills a second month: there is nothing to stop. */
  async cancelSubscription(): Promise<void> {}
}

const PAYMENTS_OFF = 'Payments are not set up on this server: its operator has not configured a payment provider';

/** Production without Stripe: nobody can pay, so checkouts are refused and no webhook is believed. */
class NoProvider implements PaymentProvider {
  readonly name = 'none';
  readonly isTestMode = false;
  readonly publishableKey = '';
  /** A secret nobody holds, so every webhook delivery is refused. */
  readonly webhookSecret = `whsec_${randomBase64Url(32)}`;
  readonly startupWarning =
    'Payments are off: SKILLET_ENV is production and no STRIPE_SECRET_KEY is set, so purchases and subscriptions answer 503.';

  async createCheckout(): Promise<never> {
    throw new ServiceUnavailable(PAYMENTS_OFF);
  }

  async cancelSubscription(): Promise<never> {
    throw new ServiceUnavailable(PAYMENTS_OFF);
  }
}

export function paymentProviderFor(config: Config): PaymentProvider {
  if (config.billing.stripe) return new StripeProvider(config.billing.stripe);
  return config.environment === 'production' ? new NoProvider() : new LocalProvider(config);
}
