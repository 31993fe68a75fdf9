/** The paths inside every run's computer (DESIGN §14): the same every run, so skills can name them. */
export const COMPUTER_PATHS = {
  workspace: '/workspace',
  uploads: '/mnt/user-data/uploads',
  outputs: '/mnt/session/outputs',
  outputsAlias: '/mnt/user-data/outputs',
  skills: '/mnt/skills',
} as const;
