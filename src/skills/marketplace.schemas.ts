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
  /** What a run expects: the skill's `input:` sentence, else its description. */
  input: Type.String(),
  /** What a run given no input works on, for clients that offer it; null when input is needed. */
  defaultInput: Type.Union([Type.String(), Type.Null()]),
});

export const SkillList = Type.Object({ items: Type.Array(SkillItem), ...PageFields });
