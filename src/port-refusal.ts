/**
 * A port this node could not listen on, in words: the port is taken, or not this user's to
 * take, or the address is not this machine's. Node's own error would print a stack trace
 * that tells a newcomer nothing about what to change.
 */
export class PortRefusal extends Error {}

/**
 * The refusal of `listen` as a PortRefusal naming the setting that chose the port (PORT,
 * METRICS_PORT) or the address (HOST, METRICS_HOST); any other error as it is.
 */
export function portRefusal(error: unknown, settings: { port: string; host: string }): unknown {
  if (!(error instanceof Error)) return error;
  const { code, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
  const where = `${address}:${port}`;
  if (code === 'EADDRINUSE') {
    return new PortRefusal(
      `Skillet cannot listen on ${where}: another program is already using port ${port}. Stop that program, or choose another port with ${settings.port}, for example ${settings.port}=${otherPort(port)} npm start.`,
    );
  }
  if (code === 'EACCES') {
    return new PortRefusal(
      `Skillet is not allowed to listen on ${where}: ports below 1024 need administrator rights. Choose a port from 1024 up with ${settings.port}, for example ${settings.port}=8080 npm start.`,
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new PortRefusal(
      `Skillet cannot listen on ${where}: ${address} is not an address of this machine. Set ${settings.host} to one of its addresses, such as 127.0.0.1 or 0.0.0.0 for all of them.`,
    );
  }
  return error;
}

function otherPort(port: number | undefined): number {
  return port === undefined || port >= 65535 ? 8081 : port + 1;
}
