import { Type } from 'typebox';

export const CreateKeyBody = Type.Object({ label: Type.String({ minLength: 1, maxLength: 100 }) });
