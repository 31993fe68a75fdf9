import { Type } from 'typebox';
import { UPLOAD_LIMITS } from './skill-upload.js';

export const InstallFolderBody = Type.Object(
  {
    /** The folder's own name: the skill's slug when its SKILL.md names none. */
    folderName: Type.String({ minLength: 1, maxLength: 100 }),
    files: Type.Array(
      Type.Object(
        { path: Type.String({ minLength: 1, maxLength: 1024 }), content: Type.String({ maxLength: 8 * 1024 * 1024 }) },
        { additionalProperties: false },
      ),
      // One more than the limit, so the domain says it in words instead of the validator.
      { maxItems: UPLOAD_LIMITS.files + 1 },
    ),
  },
  { additionalProperties: false },
);

export const InstalledSkill = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  runtime: Type.Union([Type.Literal('script'), Type.Literal('agent')]),
  files: Type.Integer(),
});
