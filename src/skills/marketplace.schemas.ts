import { Type } from 'typebox';
import { PageFields, PageQuery } from '../http/schemas.js';

export const MarketplaceQuery = Type.Object(PageQuery);

const SkillItem = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.String(),
  price: Type.Integer(),
  installed: Type.Boolean(),
});

export const SkillList = Type.Object({ items: Type.Array(SkillItem), ...PageFields });
