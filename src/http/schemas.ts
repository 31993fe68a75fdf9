import { Type } from 'typebox';

/** Small schema pieces many routes share. */
export const Timestamp = Type.String({ format: 'date-time' });
export const Success = Type.Object({ success: Type.Literal(true) });
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const WorkspaceRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
