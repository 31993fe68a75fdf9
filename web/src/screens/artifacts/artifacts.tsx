import type { Artifact, ArtifactWithFiles } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { type ArtifactPage, listArtifacts } from '../../requests/artifacts';
import { Link, useRoute } from '../../router';
import { formatTime, Notice } from '../../ui';
import './artifact.css';

const PAGE_SIZE = 20;

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function typeLabel(artifact: Artifact, fileCount?: number): string {
  if (artifact.bundleType === null) return artifact.fileType;
  return fileCount === undefined ? 'Bundle' : `Bundle, ${fileCount} ${fileCount === 1 ? 'file' : 'files'}`;
}

/** The page's offset from the query: a whole number, a multiple of the page size, else the first page. */
function offsetOf(query: URLSearchParams): number {
  const value = Number(query.get('offset') ?? '0');
  return Number.isInteger(value) && value > 0 ? value - (value % PAGE_SIZE) : 0;
}

function Paging({ page }: { page: ArtifactPage }) {
  const first = page.offset + 1;
  const last = page.offset + page.items.length;
  const previous = Math.max(0, page.offset - PAGE_SIZE);
  return (
    <nav class="row artifact-paging" aria-label="Pages of artifacts">
      {page.offset > 0 && <Link href={previous === 0 ? '/artifacts' : `/artifacts?offset=${previous}`}>Previous page</Link>}
      <span class="muted">{page.items.length > 0 ? `${first}–${last} of ${page.total}` : `None here of ${page.total}`}</span>
      {page.hasMore && <Link href={`/artifacts?offset=${page.offset + PAGE_SIZE}`}>Next page</Link>}
    </nav>
  );
}

function Rows({ items }: { items: ArtifactWithFiles[] }) {
  return (
    <table class="stack artifact-table">
      <thead>
        <tr>
          <th scope="col">Title</th>
          <th scope="col">Type</th>
          <th scope="col">Size</th>
          <th scope="col">Created</th>
          <th scope="col">Sharing</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.id}>
            <td class="artifact-title-cell">
              <Link href={`/artifacts/${item.id}`}>{item.title}</Link>
              <span class="muted"> · {item.skillName}</span>
            </td>
            <td data-label="Type">
              <span class="mono">{typeLabel(item, item.fileList.length)}</span>
            </td>
            <td data-label="Size" class="nowrap">
              {formatSize(item.contentSize)}
            </td>
            <td data-label="Created">{formatTime(item.createdAt)}</td>
            <td data-label="Sharing">
              {item.isPublic ? <span class="badge badge-active">Public</span> : <span class="muted">Private</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ArtifactsScreen() {
  const { query } = useRoute();
  const offset = offsetOf(query);
  const { data, error, loading } = useLoad(() => listArtifacts(PAGE_SIZE, offset), [offset]);
  return (
    <>
      <p class="lede">The files your runs wrote. Open one to preview, download, publish or delete it.</p>
      {error && <Notice kind="error">{error}</Notice>}
      {!data && loading && <p aria-busy="true">Loading…</p>}
      {data && data.total === 0 && (
        <Notice kind="info">
          No artifacts yet. <Link href="/skills">Run a skill</Link> and the files it writes appear here.
        </Notice>
      )}
      {data && data.total > 0 && (
        <section aria-label="Artifacts">
          {data.items.length > 0 && <Rows items={data.items} />}
          <Paging page={data} />
        </section>
      )}
    </>
  );
}
