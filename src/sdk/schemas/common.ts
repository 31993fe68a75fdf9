import { Type } from 'typebox';

/**
 * The pieces every answer shares. These schemas are the one source of the wire shapes: the
 * server's routes answer with them and the SDK's types are `Static<>` of them (types.ts).
 */
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/** The paging fields every page of a list answers with, beside its `items`. */
export const PageFields = { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), hasMore: Type.Boolean() };
export const PageFieldsSchema = Type.Object(PageFields);
export const Success = Type.Object({ success: Type.Literal(true) });
export const WorkspaceRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
/** Something around an @, as a receipt address; the refusal (validation-words.ts) shows one. */
export const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
/** A whole address with its scheme (https://…), where a browser is sent back to. */
export const WEB_ADDRESS_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]*://';
