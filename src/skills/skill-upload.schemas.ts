import { Type } from 'typebox';
import { SkillFolderFileSchema } from '../sdk/schemas/skills.js';
import { UPLOAD_LIMITS } from './skill-upload.js';

const FolderFields = {
  /** The folder's own name: the skill's slug when its SKILL.md names none. */
  folderName: Type.String({ minLength: 1, maxLength: 100 }),
  files: Type.Array(
    SkillFolderFileSchema,
    // One more than the limit, so the domain says it in words instead of the validator.
    { maxItems: UPLOAD_LIMITS.files + 1 },
  ),
};

export const InstallFolderBody = Type.Object(
  {
    ...FolderFields,
    /**
     * The slug to install under, chosen by the person: above the SKILL.md's and the folder's,
     * for a skill whose own is taken (a public skill named like one of the server's).
     */
    slug: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

/** A new version of an installed skill: its folder, installed over it under the same slug. */
export const UpdateFolderBody = Type.Object(FolderFields, { additionalProperties: false });

export const Removed = Type.Object({ success: Type.Literal(true) });

export const SkillParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 100 }) });
