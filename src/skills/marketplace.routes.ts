import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { marketplacePage } from './marketplace.js';
import { MarketplaceQuery, SkillList } from './marketplace.schemas.js';

/** The skills this server offers; every workspace has all of them installed. */
export function marketplaceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/marketplace/skills',
      { config: { auth: 'user' }, schema: { querystring: MarketplaceQuery, response: { 200: SkillList } } },
      async (request) => {
        const { limit, offset } = request.query;
        return marketplacePage(ctx.skills, {
          limit: limit === undefined ? undefined : Number(limit),
          offset: offset === undefined ? undefined : Number(offset),
        });
      },
    );
  };
}
