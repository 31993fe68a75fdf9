import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';

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
        const limit = request.query.limit === undefined ? 20 : Number(request.query.limit);
        if (limit < 1 || limit > 100) throw new InvalidInput('limit must be from 1 to 100');
        const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
        const all = ctx.skills.list();
        const items = all.slice(offset, offset + limit).map((skill) => ({
          slug: skill.slug,
          name: skill.name,
          description: skill.description,
          runtime: skill.runtime,
          price: skill.price,
          installed: true,
        }));
        return { items, total: all.length, limit, offset, hasMore: offset + items.length < all.length };
      },
    );
  };
}
