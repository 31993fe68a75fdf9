import { Readable } from 'node:stream';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeS3, fakeS3 } from '../fakes/s3.js';

let s3: FakeS3;
beforeAll(async () => {
  s3 = await fakeS3();
});
afterAll(() => s3.close());

/** The SDK as it comes: streamed uploads go out aws-chunked with a CRC-32 trailer. */
const client = (accessKeyId = s3.accessKeyId) =>
  new S3Client({
    endpoint: s3.url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey: s3.secretAccessKey },
  });

describe('the S3 stand-in', () => {
  it("takes the SDK's default streamed (aws-chunked) upload and gives the bytes back", async () => {
    const body = Readable.from([Buffer.from('chunked '), Buffer.from('upload')]);
    await client().send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'a/b', Body: body, ContentLength: 14 }));
    expect(s3.objects.get('a/b')?.body.toString()).toBe('chunked upload');
    const reply = await client().send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'a/b' }));
    expect(await reply.Body?.transformToString()).toBe('chunked upload');
  });

  it('refuses bytes that do not match their SHA-256, an unknown key id and another bucket, as S3 does', async () => {
    const wrong = Buffer.alloc(32).toString('base64');
    await expect(
      client().send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'c', Body: 'data', ChecksumSHA256: wrong })),
    ).rejects.toMatchObject({ name: 'BadDigest' });
    await expect(client('SOMEONEELSE').send(new GetObjectCommand({ Bucket: s3.bucket, Key: 'a/b' }))).rejects.toMatchObject({
      name: 'InvalidAccessKeyId',
    });
    await expect(client().send(new GetObjectCommand({ Bucket: 'other', Key: 'a/b' }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
    expect(s3.objects.has('c')).toBe(false);
  });
});
