import { Type } from 'typebox';

export const PublicParams = Type.Object({ artifactId: Type.String({ maxLength: 100 }), '*': Type.String({ maxLength: 2048 }) });
