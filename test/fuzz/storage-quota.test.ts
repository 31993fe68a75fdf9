import fc from 'fast-check';
import { expect } from 'vitest';
import { session, signUp } from '../helpers/factories.js';
import { type InputFile, uploadForm, uploadRaw } from '../helpers/files.js';
import { withServer } from '../helpers/fixtures.js';
import { answerChecker, type OpenApiDocument, operationsOf } from './openapi-document.js';
import { runs, UNLIMITED } from './settings.js';

/**
 * The workspace storage limits (issue 50, item 3) against a model: random runs of uploads
 * (raw with a length, or a form without one, of random sizes, some at once) and deletions
 * in a new workspace each time. An upload is stored exactly when the model has room for it
 * (a file fewer than the count, its bytes within what is left); otherwise it is a 409 (the
 * count) or 413 (the bytes) in the documented envelope, and nothing changes.
 */
const BYTES = 4000;
const FILES = 4;
const it = withServer({ ...UNLIMITED, WORKSPACE_STORAGE_LIMIT_BYTES: String(BYTES), WORKSPACE_FILE_LIMIT: String(FILES) }).extend(
  'document',
  { scope: 'file' },
  async ({ api }) => (await api.get<OpenApiDocument>('/openapi.json')).body,
);

type Step =
  | { kind: 'raw' | 'form'; size: number }
  | { kind: 'both'; sizes: [number, number] }
  | { kind: 'delete'; index: number };

const size = fc.integer({ min: 0, max: 2500 });
const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constantFrom('raw' as const, 'form' as const), size }),
    fc.record({ kind: fc.constant('both' as const), sizes: fc.tuple(size, size) }),
    fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
  ),
  { minLength: 1, maxLength: 10 },
);

it('stores an upload exactly when it fits, and refuses the rest in words with nothing kept', async ({
  server,
  api,
  document,
}) => {
  const check = answerChecker(document);
  const operation = operationsOf(document).find((each) => each.method === 'POST' && each.path === '/api/v1/files');
  if (!operation) throw new Error('the document has no upload');
  const refusals = new Set<number>();

  await fc.assert(
    fc.asyncProperty(steps, async (plan: Step[]) => {
      const person = await signUp(api);
      const headers = session(person);
      const kept: InputFile[] = [];
      const used = () => kept.reduce((sum, file) => sum + file.size, 0);
      const upload = (kind: 'raw' | 'form', bytes: number) =>
        (kind === 'raw' ? uploadRaw : uploadForm)(server.url, headers, `f${bytes}.bin`, Buffer.alloc(bytes, 7));
      const expectRefusal = (reply: { status: number; body: unknown; text: string }) => {
        expect([409, 413], reply.text).toContain(reply.status);
        expect(check(operation, reply.status, 'application/json', reply.body), reply.text).toMatchObject({ ok: true });
        expect(reply.text).toContain('Delete files you no longer need');
        refusals.add(reply.status);
      };

      for (const step of plan) {
        if (step.kind === 'delete') {
          const [gone] = kept.splice(step.index % Math.max(1, kept.length), 1);
          if (gone) await fetch(`${server.url}/api/v1/files/${gone.id}`, { method: 'DELETE', headers });
        } else if (step.kind === 'both') {
          // At once: which one wins is the server's to say; the model takes what it stored.
          const replies = await Promise.all([upload('raw', step.sizes[0]), upload('form', step.sizes[1])]);
          for (const reply of replies) {
            if (reply.status === 201) kept.push(reply.body);
            else expectRefusal(reply);
          }
          expect(kept.length).toBeLessThanOrEqual(FILES);
          expect(used()).toBeLessThanOrEqual(BYTES);
        } else {
          const fits = kept.length < FILES && used() + step.size <= BYTES;
          const reply = await upload(step.kind, step.size);
          if (fits) {
            expect(reply.status, reply.text).toBe(201);
            kept.push(reply.body);
          } else {
            expectRefusal(reply);
            expect(reply.status).toBe(kept.length >= FILES ? 409 : 413);
          }
        }
        const listed = await fetch(`${server.url}/api/v1/files?limit=100`, { headers });
        const items = ((await listed.json()) as { items: InputFile[] }).items;
        expect(items.map((file) => file.id).sort()).toEqual(kept.map((file) => file.id).sort());
      }
    }),
    runs(30),
  );
  expect([...refusals].sort()).toEqual([409, 413]);
});
