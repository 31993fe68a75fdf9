import type { AppContext, AttemptOutcomeKind, Webhooks } from '../context.js';
import { decrypt } from '../secrets.js';
import { type AttemptOutcome, postWebhook } from './sender.js';
import { signedHeaders } from './signing.js';
import {
  type AttemptRow,
  claimDelivery,
  type DeliveryToSend,
  deliveryToSend,
  dueDeliveryIds,
  recordAttempt,
} from './webhooks.store.js';

type DispatchDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'keys' | 'log'>;

/** Deliveries one pass claims; the pass goes on while there are more. */
const BATCH = 16;
/** How long past an attempt's own timeout a claim holds, before another node may take it over. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Sends due deliveries. Every node runs one: it looks for due deliveries every
 * WEBHOOK_POLL_MS and at once when told an event was queued (`kick`). Deliveries are
 * claimed with a lease, so nodes never send the same attempt twice while the holder
 * lives, and a dead holder's claim lapses. Due-ness and signatures use the injected clock.
 */
export class WebhookDispatcher implements Webhooks {
  readonly #deps: DispatchDeps;
  #timer: NodeJS.Timeout | undefined;
  #passing: Promise<void> | undefined;
  #again = false;
  #closed = false;
  #observer: ((outcome: AttemptOutcomeKind) => void) | undefined;

  constructor(deps: DispatchDeps) {
    this.#deps = deps;
  }

  /** Tells `observer` how each attempt ended (the metrics count them). */
  observe(observer: (outcome: AttemptOutcomeKind) => void): void {
    this.#observer = observer;
  }

  start(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setInterval(() => this.kick(), this.#deps.config.webhooks.pollMs);
    this.#timer.unref();
  }

  /** Looks for due deliveries now (or right after the pass under way). Does nothing until started. */
  kick(): void {
    if (!this.#timer || this.#closed) return;
    if (this.#passing) {
      this.#again = true;
      return;
    }
    this.#passing = this.#passes().finally(() => {
      this.#passing = undefined;
    });
  }

  /** Stops looking and waits for the attempts under way. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#passing;
  }

  async #passes(): Promise<void> {
    do {
      this.#again = false;
      try {
        while (!this.#closed && (await this.#pass()) === BATCH);
      } catch (error) {
        this.#deps.log.error({ err: error }, 'webhook delivery pass failed');
      }
    } while (this.#again && !this.#closed);
  }

  /** Claims and sends one batch of due deliveries, concurrently; returns how many were due. */
  async #pass(): Promise<number> {
    const now = this.#deps.clock.now();
    const nowIso = now.toISOString();
    const lockedUntil = new Date(now.getTime() + this.#deps.config.webhooks.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const due = await dueDeliveryIds(this.#deps.db, nowIso, BATCH);
    const settled = await Promise.allSettled(
      due.map(async (id) => {
        if (await claimDelivery(this.#deps.db, id, nowIso, lockedUntil)) await this.#attempt(id);
      }),
    );
    // The database went away mid-pass: the claims lapse, and a later pass tries again.
    for (const result of settled) {
      if (result.status === 'rejected') this.#deps.log.error({ err: result.reason }, 'webhook delivery failed to be recorded');
    }
    return due.length;
  }

  /** The one POST of an attempt; anything that keeps it from being sent counts as a failed attempt. */
  async #send(delivery: DeliveryToSend, secrets: string[], at: Date): Promise<AttemptOutcome> {
    if (delivery.enabled !== 1) return { statusCode: null, error: 'the endpoint is disabled' };
    try {
      const { keys, config } = this.#deps;
      const plain = secrets.map((sealed) => decrypt(keys.webhookSecrets, sealed));
      return await postWebhook(new URL(delivery.url), delivery.payload, {
        headers: { ...signedHeaders(plain, delivery.message_id, at, delivery.payload) },
        timeoutMs: config.webhooks.timeoutMs,
        allowPrivateAddresses: config.webhooks.allowPrivateAddresses,
      });
    } catch (error) {
      // A secret sealed under another SIGNING_SECRET, say: logged, and retried like any failure.
      this.#deps.log.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be made');
      return { statusCode: null, error: 'the attempt could not be made (see the server log)' };
    }
  }

  async #attempt(deliveryId: string): Promise<void> {
    const { db, clock, config } = this.#deps;
    const delivery = await deliveryToSend(db, deliveryId);
    if (!delivery) return;
    const number = delivery.attempts + 1;
    const started = clock.now();
    const startedMs = performance.now();
    const secrets = [delivery.secret_sealed];
    if (
      delivery.previous_secret_sealed &&
      delivery.previous_secret_until &&
      delivery.previous_secret_until > started.toISOString()
    ) {
      secrets.push(delivery.previous_secret_sealed);
    }
    const outcome = await this.#send(delivery, secrets, started);
    const attempt: AttemptRow = {
      delivery_id: deliveryId,
      number,
      attempted_at: started.toISOString(),
      status_code: outcome.statusCode,
      error: outcome.error,
      duration_ms: Math.round(performance.now() - startedMs),
    };
    const retryIn = delivery.enabled === 1 && outcome.error ? config.webhooks.retryDelaysMs[number - 1] : undefined;
    const finished = clock.now();
    const kind: AttemptOutcomeKind = outcome.error === null ? 'delivered' : retryIn === undefined ? 'failed' : 'retrying';
    await recordAttempt(db, attempt, {
      attempts: number,
      status: kind === 'retrying' ? 'pending' : kind,
      next_attempt_at: retryIn === undefined ? null : new Date(finished.getTime() + retryIn).toISOString(),
      locked_until: null,
      last_attempt_at: attempt.attempted_at,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
    });
    this.#observer?.(kind);
  }
}
