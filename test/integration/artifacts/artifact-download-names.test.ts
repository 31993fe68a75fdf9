import { parse as parseDisposition } from 'content-disposition';
import { describe, expect } from 'vitest';
import type { Artifact } from '../../../src/sdk/types.js';
import { bytesOf, runForArtifact } from '../../helpers/artifacts.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' }).extend(
  'person',
  { scope: 'file' },
  ({ api }) => signUp(api),
);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('a single-file artifact downloads under the name the skill gave its file', () => {
  it('proposal.docx downloads as proposal.docx, while the title and the other fields stay as they were', async ({
    api,
    server,
    person,
  }) => {
    const named = async (input: object) => {
      const { artifactId } = await runForArtifact(api, person, 'writer', JSON.stringify(input));
      const detail = await api.get<Artifact>(`/api/v1/artifacts/${artifactId}`, { headers: session(person) });
      const file = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/download`, session(person));
      expect(file.status).toBe(200);
      return { detail: detail.body, disposition: parseDisposition(file.headers.get('content-disposition') ?? '') };
    };

    // No title in the input: the title is the skill's name, as before; the download is the file's.
    const plain = await named({ files: [{ path: 'proposal.docx', bytes: 2048 }] });
    expect(plain.disposition).toEqual({ type: 'attachment', parameters: { filename: 'proposal.docx' } });
    expect(plain.detail).toMatchObject({ title: 'Writer', fileType: DOCX, bundleType: null, contentSize: 2048 });

    // A title the input gives stays the title; a file in a folder downloads by its own name.
    const titled = await named({ title: 'Quarterly proposal', files: [{ path: 'out/Q3 plan.docx', bytes: 10 }] });
    expect(titled.disposition).toEqual({ type: 'attachment', parameters: { filename: 'Q3 plan.docx' } });
    expect(titled.detail.title).toBe('Quarterly proposal');
  });

  it('a file name with quotes and non-Latin letters makes a safe Content-Disposition', async ({ api, server, person }) => {
    const { artifactId } = await runForArtifact(
      api,
      person,
      'writer',
      JSON.stringify({ files: [{ path: 'Ré"sumé 東京.txt', text: 'hi' }] }),
    );
    const file = await bytesOf(`${server.url}/api/v1/artifacts/${artifactId}/download`, session(person));
    const header = file.headers.get('content-disposition') ?? '';
    // ASCII on the wire, the whole name in RFC 5987's filename*.
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(parseDisposition(header)).toMatchObject({ type: 'attachment', parameters: { filename: 'Ré"sumé 東京.txt' } });
    expect(file.body.toString('utf8')).toBe('hi');
  });
});
