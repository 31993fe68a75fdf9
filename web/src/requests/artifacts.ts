import { SkilletError } from '../../../src/sdk/errors';
import type { ArtifactWithContent, ArtifactWithFiles, Manifest, ManifestFile, Page, Published } from '../../../src/sdk/types';
import { del, get, post } from '../api';

export type ArtifactPage = Page<ArtifactWithFiles>;

export interface FoundArtifact {
  artifact: ArtifactWithContent;
  /** The bundle's files; null for a single-file artifact. */
  files: ManifestFile[] | null;
}

function pathOf(id: string, suffix = ''): string {
  return `/api/v1/artifacts/${encodeURIComponent(id)}${suffix}`;
}

export const listArtifacts = (limit: number, offset: number) =>
  get<ArtifactPage>(`/api/v1/artifacts?limit=${limit}&offset=${offset}`);

/** The artifact and, for a bundle, its manifest; null when this workspace has no such artifact. */
export async function findArtifact(id: string): Promise<FoundArtifact | null> {
  try {
    const artifact = await get<ArtifactWithContent>(pathOf(id));
    // Only a bundle has a manifest; asking for a single file's would be a 404 by design.
    const files = artifact.bundleType === 'directory' ? (await get<Manifest>(pathOf(id, '/manifest'))).files : null;
    return { artifact, files };
  } catch (error) {
    if (error instanceof SkilletError && error.status === 404) return null;
    throw error;
  }
}

export const deleteArtifact = (id: string) => del(pathOf(id));

/** Publishes (or publishes again) a copy anyone can open; only this answer tells its address. */
export const publishArtifact = (id: string) => post<Published>(pathOf(id, '/publish'));

export const unpublishArtifact = (id: string) => post(pathOf(id, '/unpublish'));

/** The whole artifact as a download: a bundle comes as a ZIP. */
export const artifactDownloadUrl = (id: string) => pathOf(id, '/download');

export function artifactFileUrl(artifactId: string, path: string): string {
  return pathOf(artifactId, `/file/${path.split('/').map(encodeURIComponent).join('/')}`);
}

/** A file's text by its URL, for a preview; the cookie and the app's header go with it as with every call. */
export async function readFileText(url: string): Promise<string> {
  const response = await fetch(url, { credentials: 'same-origin', headers: { 'x-skillet-app': '1' } });
  if (!response.ok) throw new Error(`The file could not be read (${response.status})`);
  return response.text();
}

/** A signed base under which a bundle's files open in a sandboxed frame, relative links included. */
export const artifactPreviewLink = (id: string) => get<{ url: string; expiresAt: string }>(pathOf(id, '/preview-link'));
