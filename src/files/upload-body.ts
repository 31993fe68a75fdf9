import type { FastifyRequest } from 'fastify';
import { InvalidInput } from '../errors.js';
import type { Upload } from './files.js';
import { boundaryOf, formFileOf } from './multipart.js';

/**
 * A name from the x-filename header. Header values reach Node as Latin-1: a client may send
 * UTF-8 percent-encoded (`r%C3%A9sum%C3%A9.pdf`), or raw, which is read back as UTF-8.
 */
function headerName(value: string): string {
  if (/%[0-9a-f]{2}/i.test(value)) {
    try {
      return decodeURIComponent(value);
    } catch {
      // Not percent-encoding after all: read it as it came.
    }
  }
  return Buffer.from(value, 'latin1').toString('utf8');
}

/** The upload a request carries: the `file` field of a multipart form, or the whole body named by x-filename. */
export async function uploadOf(request: FastifyRequest): Promise<{ upload: Upload; declaredLength: number | undefined }> {
  const contentType = request.headers['content-type'] ?? '';
  if (/^multipart\/form-data\b/i.test(contentType)) {
    const file = await formFileOf(request.raw, boundaryOf(contentType));
    return { upload: { filename: file.filename, statedType: file.contentType, bytes: file.body }, declaredLength: undefined };
  }
  const name = request.headers['x-filename'];
  if (typeof name !== 'string') {
    throw new InvalidInput(
      'The upload has no file name. Send the file in a multipart form field named "file", or as the request body with an x-filename header naming it.',
    );
  }
  const length = request.headers['content-length'];
  return {
    upload: { filename: headerName(name), statedType: contentType || undefined, bytes: request.raw },
    declaredLength: length === undefined ? undefined : Number(length),
  };
}
