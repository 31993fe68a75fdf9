import { preparedWrite } from '../db/prepared-lookup.js';

/** Records a provider event as handled; a second claim of one id is a unique violation. */
export const claimEvent = preparedWrite((db, id: string, type: string, receivedAt: string) =>
  db.insertInto('payment_events').values({ id, type, received_at: receivedAt }),
);
