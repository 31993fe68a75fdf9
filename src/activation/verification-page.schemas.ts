import { Type } from 'typebox';

/** The verification page's forms: posted by a browser, so every field is bounded text. */
const Field = Type.String({ maxLength: 1024 });
export const CodeQuery = Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) });
export const ReviewForm = Type.Object({ code: Field, email: Field, password: Field });
export const DecisionForm = Type.Object({
  ticket: Field,
  workspace: Type.String({ maxLength: 100 }),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
});
