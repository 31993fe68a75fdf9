import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { marketplacePage } from './marketplace.js';

const Count = Type.String({ pattern: '^[0-9]{1,6}$' });
const ListQuery = Type.Object({ limit: Type.Optional(Count), offset: Type.Optional(Count) });
const SkillItem = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.String(),
  price: Type.Integer(),
  installed: Type.Boolean(),
});
const SkillList = Type.Object({
  items: Type.Array(SkillItem),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasMore: Type.Boolean(),
});

/** The skills this server offers; every workspace has all of them installed. */
export function marketplaceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/marketplace/skills',
      { config: { auth: 'user' }, schema: { querystring: ListQuery, response: { 200: SkillList } } },
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
