import { Type } from 'typebox';

const Code = Type.String({ maxLength: 64 });

export const PollBody = Type.Object({ device_code: Type.String({ maxLength: 200 }) });
export const CodeBody = Type.Object({ code: Code });
export const CodeQuery = Type.Object({ code: Code });
