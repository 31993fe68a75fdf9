import { Type } from 'typebox';

/** Small schema pieces many routes share. */
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/** Query numbers arrive as text; handlers read them after this shape check. */
export const COUNT_PATTERN = '^[0-9]{1,6}$';
const Count = Type.String({ pattern: COUNT_PATTERN });
/** Something around an @, as a receipt address; the refusal (validation-words.ts) shows one. */
export const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
/** A whole address with its scheme (https://…), where a browser is sent back to. */
export const WEB_ADDRESS_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]*://';
/** `limit` and `offset` of every paged list. */
export const PageQuery = { limit: Type.Optional(Count), offset: Type.Optional(Count) };
/** The paging fields every page of a list answers with, beside its `items`. */
export const PageFields = { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() };
export const Success = Type.Object({ success: Type.Literal(true) });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const WorkspaceRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
