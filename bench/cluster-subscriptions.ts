/** A subscriber to a run's event stream (SSE), as the cluster suite (bench/cluster.ts) opens them. */
import { request as httpRequest } from 'node:http';

/** One open event stream: its frames as they arrive, each with the wall-clock time it was read. */
interface Subscription {
  /** Resolves once the server has answered (its `: connected` comment). */
  connected: Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Event frames received. */
  frames: number;
  /** The sequence of the last frame received, and whether each frame was the one after the last. */
  lastSequence: number;
  inOrder: boolean;
  /** Receipt time (Date.now()) of each agent.message, by sequence; kept only when asked for. */
  messageTimes: Map<number, number>;
}

export function subscribe(url: string, keepTimes: boolean): Subscription {
  let connect: () => void = () => {};
  let end: () => void = () => {};
  let failConnect: (error: Error) => void = () => {};
  let failEnd: (error: Error) => void = () => {};
  const fail = (error: Error) => {
    failConnect(error);
    failEnd(error);
  };
  const subscription: Subscription = {
    connected: new Promise<void>((resolve, reject) => {
      connect = resolve;
      failConnect = reject;
    }),
    ended: new Promise<void>((resolve, reject) => {
      end = resolve;
      failEnd = reject;
    }),
    frames: 0,
    lastSequence: 0,
    inOrder: true,
    messageTimes: new Map(),
  };
  // A stream that fails is reported by whichever of the two is awaited; the other must not
  // become an unhandled rejection.
  subscription.connected.catch(() => {});
  subscription.ended.catch(() => {});
  const request = httpRequest(url, { agent: false }, (response) => {
    if (response.statusCode !== 200) {
      fail(new Error(`stream answered ${response.statusCode}`));
      response.resume();
      return;
    }
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      const at = Date.now();
      buffer += chunk;
      // Whole frames only; a frame split over two reads counts when its end arrives.
      let boundary = buffer.indexOf('\n\n');
      while (boundary !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        if (frame.startsWith(': connected')) connect();
        else if (frame.startsWith('id: ')) {
          const sequence = Number(frame.slice(4, frame.indexOf('\n')));
          subscription.frames++;
          if (sequence !== subscription.lastSequence + 1) subscription.inOrder = false;
          subscription.lastSequence = sequence;
          if (keepTimes && frame.includes('"type":"agent.message"')) subscription.messageTimes.set(sequence, at);
        }
        boundary = buffer.indexOf('\n\n');
      }
    });
    response.on('end', () => end());
    response.on('close', () => fail(new Error('the stream was cut before it ended')));
    response.on('error', fail);
  });
  request.on('error', fail);
  request.end();
  return subscription;
}
