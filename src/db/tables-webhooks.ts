/* Row types of outbound webhooks: endpoints, messages, deliveries and attempts (the `Tables` of tables.ts lists them all). */
/** An outbound webhook endpoint of a workspace; its signing secret is sealed at rest. */
export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  /** A JSON array of the event types it receives. */
  event_types: string;
  secret_sealed: string;
  /** The secret a rotation replaced: attempts are signed with it too until `previous_secret_until`. */
  previous_secret_sealed: string | null;
  previous_secret_until: string | null;
  enabled: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One event to tell a workspace's endpoints about; `id` is the webhook-id of every attempt. */
export interface WebhookMessagesTable {
  id: string;
  workspace_id: string;
  event_type: string;
  /** The exact body sent (and signed). */
  payload: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A message on its way to one endpoint: its retry state, and the lease of the node sending it. */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  message_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
}

/** The delivery log: one row per attempt. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  number: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}
