/** What a checkout is for, and whom. */
export interface CheckoutRequest {
  kind: 'pack' | 'subscription';
  /** What the buyer sees on the checkout page. */
  name: string;
  priceCents: number;
  email: string;
  userId: string;
  successUrl: string;
  cancelUrl: string;
}

/**
 * Where people pay. Stripe when a secret key is configured; otherwise the local test-mode
 * checkout, a page of this server, or in production nowhere. Stripe and the local checkout
 * report payments the same way: Stripe-shaped events signed with the Stripe scheme,
 * delivered to the one webhook and verified there (billing/webhook-signature.ts).
 */
export interface PaymentProvider {
  readonly name: 'stripe' | 'local' | 'none';
  readonly isTestMode: boolean;
  /** What the operator must be told at start, if anything. */
  readonly startupWarning: string | undefined;
  readonly publishableKey: string;
  /** The secret webhook signatures are made with. */
  readonly webhookSecret: string;
  /** Creates the checkout; the returned id is the session id of the provider that made it. */
  createCheckout(request: CheckoutRequest): Promise<CreatedCheckout>;
  /** Stops a subscription this provider started from renewing; what was paid runs to its end. */
  cancelSubscription(reference: string): Promise<void>;
}

export interface CreatedCheckout {
  provider: 'stripe' | 'local';
  sessionId: string;
  checkoutUrl: string;
}
