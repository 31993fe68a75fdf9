import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/schemas.js';
import { callerOf } from '../identity/credentials.js';
import { Success } from '../sdk/schemas/common.js';
import { disconnectApp, listConnectedApps } from './connected-apps.js';
import { ConnectedAppList } from './connected-apps.schemas.js';

/** The apps a person connected over OAuth, for them to see and disconnect. */
export function connectedAppRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/auth/connected-apps',
      { config: { auth: 'session' }, schema: { response: { 200: ConnectedAppList } } },
      async (request) => ({ apps: await listConnectedApps(ctx, callerOf(request)) }),
    );

    app.delete(
      '/auth/connected-apps/:id',
      { config: { auth: 'session' }, schema: { params: IdParams, response: { 200: Success } } },
      async (request) => {
        await disconnectApp(ctx, callerOf(request), request.params.id);
        return { success: true as const };
      },
    );
  };
}
