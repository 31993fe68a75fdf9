import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../http/credentials.js';
import { catalogSkill, marketplacePage } from './marketplace.js';
import { MarketplaceQuery, SkillItem, SkillList, SkillParams } from './marketplace.schemas.js';

/** The skills the caller's workspace can run: the server's, and those installed into it. */
export function marketplaceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const url of ['/marketplace/skills', '/skills']) {
      app.get(
        url,
        { config: { auth: 'user' }, schema: { querystring: MarketplaceQuery, response: { 200: SkillList } } },
        async (request) => {
          const { limit, offset } = request.query;
          return marketplacePage(ctx, callerOf(request).workspaceId, {
            limit: limit === undefined ? undefined : Number(limit),
            offset: offset === undefined ? undefined : Number(offset),
          });
        },
      );
    }
    app.get(
      '/skills/:slug',
      { config: { auth: 'user' }, schema: { params: SkillParams, response: { 200: SkillItem } } },
      async (request) => catalogSkill(ctx, callerOf(request).workspaceId, request.params.slug),
    );
  };
}
