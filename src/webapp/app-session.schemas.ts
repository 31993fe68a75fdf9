import { Type } from 'typebox';
import { MeSchema, SignedInSchema } from '../sdk/schemas/identity.js';

/** What the app learns when it signs in: the person, never the token (that stays in the cookie). */
export const AppSignedInSchema = Type.Omit(SignedInSchema, ['token']);

/** Who the cookie belongs to, answered 200 either way: a signed-out visitor is not an error. */
/** Who is signed in, and whether this server mails reset links (the sign-in page offers one then). */
export const AppSessionSchema = Type.Object({ me: Type.Union([MeSchema, Type.Null()]), mailsResetLinks: Type.Boolean() });
