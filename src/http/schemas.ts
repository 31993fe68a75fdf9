import { Type } from 'typebox';

// Small request-schema pieces many routes share; the answers' pieces are the SDK's (sdk/schemas/common.ts).

/** Query numbers arrive as text; handlers read them after this shape check. */
export const COUNT_PATTERN = '^[0-9]{1,6}$';
const Count = Type.String({ pattern: COUNT_PATTERN });
/** `limit` and `offset` of every paged list. */
export const PageQuery = { limit: Type.Optional(Count), offset: Type.Optional(Count) };
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
