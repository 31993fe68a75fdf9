import { Type } from 'typebox';

/** The sign-in and consent pages' forms: posted by a browser, so every field is bounded text. */
const Field = Type.String({ maxLength: 1024 });
export const InteractionParams = Type.Object({ uid: Type.String({ maxLength: 64 }) });
export const SignInForm = Type.Object({ email: Field, password: Field });
export const ConsentForm = Type.Object({
  workspace: Type.String({ maxLength: 100 }),
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
});
