import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../identity/credentials.js';
import { SkillItemSchema, SkillList } from '../sdk/schemas/skills.js';
import { SkillParams } from '../skills/skill-upload.schemas.js';
import { catalogSkill, marketplacePage } from './marketplace.js';
import { MarketplaceQuery } from './marketplace.schemas.js';

/** The skills the caller's workspace can run: the server's, and those installed into it. */
export function marketplaceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const url of ['/marketplace/skills', '/skills']) {
      app.get(
        url,
        { config: { auth: 'user' }, schema: { querystring: MarketplaceQuery, response: { 200: SkillList } } },
        async (request) => {
          const { limit, offset } = request.query;
          const caller = callerOf(request);
          return marketplacePage(ctx, caller.workspaceId, caller.userId, {
            limit: limit === undefined ? undefined : Number(limit),
            offset: offset === undefined ? undefined : Number(offset),
          });
        },
      );
    }
    app.get(
      '/skills/:slug',
      { config: { auth: 'user' }, schema: { params: SkillParams, response: { 200: SkillItemSchema } } },
      async (request) => {
        const caller = callerOf(request);
        return catalogSkill(ctx, caller.workspaceId, caller.userId, request.params.slug);
      },
    );
  };
}
