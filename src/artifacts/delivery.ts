import type { Readable } from 'node:stream';

/** A body to send: its bytes, their type and, when known, their length. */
export interface Delivery {
  body: Readable;
  contentType: string;
  size: number | undefined;
  fileName?: string;
}
