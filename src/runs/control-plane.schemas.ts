import { Type } from 'typebox';

/** The signed upgrade URL's parts; each is checked by the handler, so all are optional here. */
export const UpgradeQuery = Type.Object({
  c: Type.Optional(Type.String({ maxLength: 1000 })),
  ts: Type.Optional(Type.String({ maxLength: 32 })),
  sig: Type.Optional(Type.String({ maxLength: 128 })),
});
