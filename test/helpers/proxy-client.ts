import { connect, type Socket } from 'node:net';
import { expect, vi } from 'vitest';

/** A connection to an egress proxy's unix socket that keeps all it receives: any program in a sandbox could send these bytes. */
export class ProxyClient {
  readonly socket: Socket;
  data = Buffer.alloc(0);
  closed: Promise<void>;

  constructor(socketPath: string) {
    this.socket = connect(socketPath);
    this.socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  send(bytes: string | Buffer): this {
    this.socket.write(bytes);
    return this;
  }

  text(): string {
    return this.data.toString('latin1');
  }

  async until(pattern: RegExp | string): Promise<string> {
    await vi.waitFor(() => expect(this.text()).toMatch(pattern), { timeout: 5000, interval: 10 });
    return this.text();
  }
}

export const connectRequest = (target: string) => `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`;
