import { Type } from 'typebox';

export const SessionParams = Type.Object({ sessionId: Type.String({ maxLength: 100 }) });
