import { Type } from 'typebox';
import { PageFields, PageQuery } from '../http/schemas.js';

export const MarketplaceQuery = Type.Object(PageQuery);

const FieldRules = {
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  enum: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
  minLength: Type.Optional(Type.Number()),
  maxLength: Type.Optional(Type.Number()),
  pattern: Type.Optional(Type.String()),
};
const FieldType = Type.Union([Type.Literal('string'), Type.Literal('integer'), Type.Literal('number'), Type.Literal('boolean')]);

/** A skill's declared input (input-contract.ts): one text with rules, or an object of such fields. */
const InputSchema = Type.Object({
  type: Type.Union([FieldType, Type.Literal('object')]),
  ...FieldRules,
  properties: Type.Optional(Type.Record(Type.String(), Type.Object({ type: FieldType, ...FieldRules }))),
  required: Type.Optional(Type.Array(Type.String())),
});

export const SkillItem = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.String(),
  price: Type.Integer(),
  installed: Type.Boolean(),
  /** `server`: one of the server's skills, which every workspace has; `workspace`: installed into the caller's workspace. */
  source: Type.Union([Type.Literal('server'), Type.Literal('workspace')]),
  /** What a run expects: the skill's `input:` sentence, else its description. */
  input: Type.String(),
  /** What a run given no input works on, for clients that offer it; null when input is needed. */
  defaultInput: Type.Union([Type.String(), Type.Null()]),
  /** Inputs worth trying, the first the one a form starts with. */
  examples: Type.Array(Type.String()),
  /** What an input must be; null when the skill takes any text. */
  inputSchema: Type.Union([InputSchema, Type.Null()]),
  /** Whether a run may be given files; a run of a skill that does not read them is refused with them. */
  takesFiles: Type.Boolean(),
  /** An agent skill's model calls, paid on top of its price: an estimate for a typical run; null when it calls no model. */
  modelUse: Type.Union([Type.Object({ model: Type.String(), aboutDs: Type.Integer(), ownKey: Type.Boolean() }), Type.Null()]),
});

export const SkillList = Type.Object({ items: Type.Array(SkillItem), ...PageFields });
