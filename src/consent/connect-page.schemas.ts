import { Type } from 'typebox';

/** The consent page's forms: posted by a browser, so every field is bounded text. */
const Field = Type.String({ maxLength: 1024 });
export const ConnectPageParams = Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 100 }) });
export const ConnectSignInForm = Type.Object({ email: Field, password: Field });
export const ConnectDecisionForm = Type.Object({
  ticket: Field,
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
});
