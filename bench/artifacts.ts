/**
 * Artifact download: a 100 MB bundle of 1,000 files fetched as a ZIP that Skillet builds
 * while sending it, against a bare Node server streaming the same ZIP, ready-made, from
 * disk. Also the Skillet server's peak resident-memory growth during its downloads.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { json, median, residentNow, type Server, seedUser, startServer, stop } from './processes.js';

const FILES = 1000;
const FILE_BYTES = 100 * 1024;
const ROUNDS = 5;

/** Reads a whole response, keeping nothing but its length. */
function drain(url: string, headers: Record<string, string> = {}): Promise<{ bytes: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () => resolve({ bytes, ms: performance.now() - started }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** Writes the bundle with the `writer` test skill and waits for its run to finish. */
async function writeBundle(server: Server, apiKey: string): Promise<string> {
  const headers = { 'x-api-key': apiKey };
  const files = Array.from({ length: FILES }, (_, i) => ({ path: `set-${Math.floor(i / 50)}/file-${i}.bin`, bytes: FILE_BYTES }));
  const input = JSON.stringify({ files });
  const { id } = await json<{ id: string }>(`${server.url}/api/v1/executions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ skill_slug: 'writer', input }),
  });
  const { sseUrl } = await json<{ sseUrl: string }>(`${server.url}/api/v1/executions/${id}/stream-token`, { headers });
  const stream = fetch(sseUrl).then((response) => response.text());
  await json(`${server.url}/api/v1/executions/${id}/events`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }] }),
  });
  const artifactId = /"artifactId":"([0-9a-f-]{36})"/.exec(await stream)?.[1];
  if (!artifactId) throw new Error('the writer run left no artifact');
  return artifactId;
}

export async function artifactDownloads(): Promise<void> {
  const ours = await startServer('skillet');
  const scratch = await mkdtemp(path.join(tmpdir(), 'skillet-bench-zip-'));
  let bare: Server | undefined;
  try {
    const { apiKey } = await seedUser(ours.url, 'artifacts@example.test');
    const artifactId = await writeBundle(ours, apiKey);
    const downloadUrl = `${ours.url}/api/v1/artifacts/${artifactId}/download`;
    const headers = { 'x-api-key': apiKey };

    // The baseline serves the very archive Skillet produces, saved to disk once.
    const zipFile = path.join(scratch, 'bundle.zip');
    await writeFile(zipFile, Buffer.from(await (await fetch(downloadUrl, { headers })).arrayBuffer()));
    bare = await startServer('file-baseline', zipFile);

    // No forced collection before this reading (unlike the fan-out measure): a full GC
    // left the server markedly slower for the rounds after it, which skewed the speed.
    const before = residentNow(ours);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, residentNow(ours));
    }, 10);
    const oursMbps: number[] = [];
    const bareMbps: number[] = [];
    let size = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const baseline = await drain(bare.url);
        bareMbps.push(baseline.bytes / 1e6 / (baseline.ms / 1000));
        const download = await drain(downloadUrl, headers);
        oursMbps.push(download.bytes / 1e6 / (download.ms / 1000));
        size = download.bytes;
        if (download.bytes !== baseline.bytes) throw new Error(`sizes differ: ${download.bytes} vs ${baseline.bytes}`);
      }
    } finally {
      clearInterval(sampler);
    }
    const growthMb = (peak - before) / 1024 / 1024;
    const ratio = median(oursMbps) / median(bareMbps);
    console.log(`\nArtifact download: a ${(size / 1e6).toFixed(0)} MB ZIP of ${FILES} files; medians of ${ROUNDS} rounds\n`);
    console.table([
      {
        measure: 'ZIP download (MB/s): built while sent vs a ready-made file',
        skillet: Number(median(oursMbps).toFixed(0)),
        baseline: Number(median(bareMbps).toFixed(0)),
        ratio: Number(ratio.toFixed(2)),
        target: '>= 0.6',
        verdict: ratio >= 0.6 ? 'met' : 'MISSED',
      },
      {
        measure: 'peak server memory growth during the downloads (MB)',
        skillet: Number(growthMb.toFixed(1)),
        baseline: '-',
        ratio: '-',
        target: '< 50',
        verdict: growthMb < 50 ? 'met' : 'MISSED',
      },
    ]);
  } finally {
    await stop(ours);
    if (bare) await stop(bare);
    await rm(scratch, { recursive: true, force: true });
  }
}
