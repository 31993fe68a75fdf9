import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { AppContext } from '../context.js';
import {
  consumeRecord,
  deleteGrantRecords,
  deleteGrantWorkspace,
  deleteRecord,
  findLiveRecord,
  findLiveRecordByUid,
  type OAuthRecordRow,
  upsertRecord,
} from '../identity/oauth-records.store.js';

type AdapterContext = Pick<AppContext, 'db' | 'clock'>;

function payloadOf(row: OAuthRecordRow | undefined): AdapterPayload | undefined {
  if (!row) return undefined;
  const payload: AdapterPayload = JSON.parse(row.payload);
  // oidc-provider reads `consumed` to refuse a code or rotated refresh token used twice.
  return row.consumed_at ? { ...payload, consumed: Date.parse(row.consumed_at) / 1000 } : payload;
}

/**
 * oidc-provider's storage on our database, one adapter per model name. Expiry is judged by
 * our clock: a record past its time is not found, so a test that moves the injected clock
 * sees codes and tokens expire (oidc-provider's own checks use the system time).
 */
export function databaseAdapter(ctx: AdapterContext, model: string): Adapter {
  const now = () => ctx.clock.now().toISOString();
  return {
    async upsert(id, payload, expiresIn) {
      await upsertRecord(ctx.db, {
        model,
        id,
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        uid: payload.uid ?? null,
        expires_at: expiresIn ? new Date(ctx.clock.nowMs() + expiresIn * 1000).toISOString() : null,
        consumed_at: null,
      });
    },
    async find(id) {
      return payloadOf(await findLiveRecord(ctx.db, model, id, now()));
    },
    async findByUid(uid) {
      return payloadOf(await findLiveRecordByUid(ctx.db, model, uid, now()));
    },
    // The device flow is off, so no record is ever looked up by a user code.
    async findByUserCode() {
      return undefined;
    },
    async consume(id) {
      await consumeRecord(ctx.db, model, id, now());
    },
    async destroy(id) {
      await deleteRecord(ctx.db, model, id);
      // The workspace chosen at consent goes with its grant, and only then: revoking a
      // grant's tokens leaves the grant, which a later authorization may use again.
      if (model === 'Grant') await deleteGrantWorkspace(ctx.db, id);
    },
    async revokeByGrantId(grantId) {
      await deleteGrantRecords(ctx.db, grantId);
    },
  };
}
