import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';
import { WebhookDeliveryStatusSchema } from '../sdk/schemas/webhooks.js';

export const DeliveriesQuery = Type.Object({ ...PageQuery, status: Type.Optional(WebhookDeliveryStatusSchema) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});
