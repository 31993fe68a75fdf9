export interface StreamEvent {
  id: string;
  type: string;
  sequence: number;
  payload: Record<string, unknown>;
}

export interface OpenStream {
  status: number;
  /** Every event received so far, in order. */
  events: StreamEvent[];
  /** The `id:` line of each frame, in order. */
  frameIds: string[];
  comments: number;
  /** Settles when the stream is over: ended by the server, closed, or cut off. */
  ended: Promise<void>;
  /** Set when the connection was cut off rather than ended. */
  droppedBy?: Error;
  /** Settles once at least `count` events have arrived. */
  waitFor(count: number): Promise<void>;
  close(): void;
  body: string;
}

/** One server-sent event frame's parts, as text: a comment, its `id:` and `data:` lines. */
export interface SseFrame {
  comment?: string;
  id?: string;
  data?: string;
}

/** Reads an SSE body frame by frame as it arrives; `onChunk` runs after each network chunk's frames. */
export async function readSseFrames(
  body: AsyncIterable<Uint8Array>,
  onFrame: (frame: SseFrame) => void,
  onChunk: () => void,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.indexOf('\n\n');
    while (boundary >= 0) {
      const frame = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      onFrame({
        ...(frame.startsWith(':') ? { comment: frame.slice(frame.startsWith(': ') ? 2 : 1) } : {}),
        ...(id !== undefined ? { id } : {}),
        ...(data !== undefined ? { data } : {}),
      });
      boundary = buffer.indexOf('\n\n');
    }
    onChunk();
  }
}

/** Opens a server-sent event stream and parses its frames as they arrive. */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const stream: OpenStream = {
    status: response.status,
    events: [],
    frameIds: [],
    comments: 0,
    ended: Promise.resolve(),
    waitFor: async () => undefined,
    close: () => controller.abort(),
    body: '',
  };
  if (!response.ok || !response.body) {
    stream.body = await response.text();
    return stream;
  }
  const waiters: { count: number; resolve: () => void }[] = [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      if (stream.events.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  stream.waitFor = (count) =>
    new Promise<void>((resolve) => {
      waiters.push({ count, resolve });
      notify();
    });
  stream.ended = (async () => {
    try {
      await readSseFrames(
        response.body as AsyncIterable<Uint8Array>,
        ({ comment, id, data }) => {
          if (comment !== undefined) stream.comments += 1;
          if (id !== undefined) stream.frameIds.push(id);
          if (data !== undefined) stream.events.push(JSON.parse(data) as StreamEvent);
        },
        notify,
      );
    } catch (error) {
      // Closed by us, or cut off (a killed server): either way the stream is over.
      if ((error as Error).name !== 'AbortError') stream.droppedBy = error as Error;
    }
  })();
  return stream;
}
