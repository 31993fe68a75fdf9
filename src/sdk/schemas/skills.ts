import { Type } from 'typebox';
import { PageFields } from './common.js';

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
export const InputFieldTypeSchema = Type.Union([
  Type.Literal('string'),
  Type.Literal('integer'),
  Type.Literal('number'),
  Type.Literal('boolean'),
]);
/** The rules of one field of an object input. */
export const InputFieldSchema = Type.Object({ type: InputFieldTypeSchema, ...FieldRules });

/** A skill's declared input: a text with rules (`type` a field type), or a JSON object of fields (`object`). */
export const InputSchemaSchema = Type.Object({
  type: Type.Union([InputFieldTypeSchema, Type.Literal('object')]),
  ...FieldRules,
  properties: Type.Optional(Type.Record(Type.String(), InputFieldSchema)),
  required: Type.Optional(Type.Array(Type.String())),
});

/** What an agent skill's model calls cost: an estimate for a typical run. */
export const ModelUseSchema = Type.Object({
  /** The model a run on the server's key calls. */
  model: Type.String(),
  /** Whole Ds a typical run's model calls cost at the server's prices: an estimate. */
  aboutDs: Type.Integer(),
  /** You have your own model key: your runs' model calls cost 0 Ds. */
  ownKey: Type.Boolean(),
});

export const SkillItemSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.String(),
  price: Type.Integer(),
  installed: Type.Boolean(),
  /** `server`: one of the server's skills, every workspace's; `workspace`: installed into yours, which its owners and admins may update and remove. */
  source: Type.Union([Type.Literal('server'), Type.Literal('workspace')]),
  /** What a run expects, in a sentence: the skill's `input:`, else its description. */
  input: Type.String(),
  /** What a run given no input works on; null when the skill needs input. */
  defaultInput: Type.Union([Type.String(), Type.Null()]),
  /** Inputs worth trying; a form starts with the first. */
  examples: Type.Array(Type.String()),
  /** What an input must be (runs on anything else are refused); null when any text goes. */
  inputSchema: Type.Union([InputSchemaSchema, Type.Null()]),
  /** Whether a run may be given files; a run of a skill that does not read them is refused with them. */
  takesFiles: Type.Boolean(),
  /** An agent skill's model calls, charged on top of its price; null for a skill that calls no model. */
  modelUse: Type.Union([ModelUseSchema, Type.Null()]),
});

export const SkillList = Type.Object({ items: Type.Array(SkillItemSchema), ...PageFields });

/** One file of a skill folder to install: its path inside the folder and its bytes in base64. */
export const SkillFolderFileSchema = Type.Object(
  // No length of its own: the route's body limit holds the whole folder, and the domain says
  // the size limit in words. A per-file cap would refuse a skill's large font first.
  { path: Type.String({ minLength: 1, maxLength: 1024 }), content: Type.String() },
  { additionalProperties: false },
);

/** A skill installed from a folder: its slug (what runs take), name, and how many files it has. */
export const InstalledSkillSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.Union([Type.Literal('script'), Type.Literal('agent')]),
  files: Type.Integer(),
});
