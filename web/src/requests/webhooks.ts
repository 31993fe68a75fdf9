import { SkilletError } from '../../../src/sdk/errors';
import type {
  CreatedWebhookEndpoint,
  NewWebhookEndpoint,
  Page,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookDeliveryStatus,
  WebhookEndpoint,
} from '../../../src/sdk/types';
import { del, get, patch, post } from '../api';

const endpointPath = (id: string) => `/api/v1/webhooks/${encodeURIComponent(id)}`;
const deliveryPath = (endpointId: string, deliveryId: string) =>
  `${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`;

/**
 * The workspace's endpoints, or the server's reason a member may not manage them: that
 * refusal is an answer to show in place of the list and form, not a failure to retry.
 */
export async function listWebhooks(): Promise<{ endpoints: WebhookEndpoint[] } | { forbidden: string }> {
  try {
    return { endpoints: (await get<{ webhooks: WebhookEndpoint[] }>('/api/v1/webhooks')).webhooks };
  } catch (error) {
    if (error instanceof SkilletError && error.status === 403) return { forbidden: error.message };
    throw error;
  }
}

/** The answer holds the signing secret, which the server shows this once. */
export const createWebhook = (endpoint: NewWebhookEndpoint) => post<CreatedWebhookEndpoint>('/api/v1/webhooks', endpoint);

export const getWebhook = (id: string) => get<WebhookEndpoint>(endpointPath(id));

export const setWebhookEnabled = (id: string, enabled: boolean) => patch(endpointPath(id), { enabled });

/** A new signing secret, shown this once; the old one keeps signing beside it for a day. */
export const rotateWebhookSecret = async (id: string): Promise<string> =>
  (await post<{ secret: string }>(`${endpointPath(id)}/secret`)).secret;

export const deleteWebhook = (id: string) => del(endpointPath(id));

export const sendTestEvent = (endpointId: string) => post<WebhookDelivery>(`${endpointPath(endpointId)}/test`);

/** A page of the endpoint's delivery log, newest first; no status means every status. */
export const listDeliveries = (endpointId: string, limit: number, offset: number, status: WebhookDeliveryStatus | '') =>
  get<Page<WebhookDelivery>>(
    `${endpointPath(endpointId)}/deliveries?limit=${limit}&offset=${offset}${status ? `&status=${status}` : ''}`,
  );

export const getDelivery = (endpointId: string, deliveryId: string) =>
  get<WebhookDeliveryDetail>(deliveryPath(endpointId, deliveryId));

/** Sends the same message again; the answer is the delivery that carries it (itself, or a new one). */
export const resendDelivery = (endpointId: string, deliveryId: string) =>
  post<WebhookDelivery>(`${deliveryPath(endpointId, deliveryId)}/redeliver`);
