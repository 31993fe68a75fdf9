import net from 'node:net';

function dial(options) {
  return new Promise((resolve) => {
    const socket = net.connect(options);
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve('CONNECTED');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timed out');
    });
    socket.once('error', (error) => resolve(`failed (${error.code})`));
  });
}

export default async function run(context) {
  const { ports } = JSON.parse(context.input);
  const targets = [
    ...ports.flatMap((port) => [
      { host: '127.0.0.1', port },
      { host: '::1', port },
    ]),
    { path: '/var/run/postgresql/.s.PGSQL.5432' },
    { path: '/run/redis/redis-server.sock' },
  ];
  let connected = 0;
  for (const target of targets) {
    const result = await dial(target);
    if (result === 'CONNECTED') connected += 1;
    context.message(`${target.path ?? `${target.host}:${target.port}`}: ${result}`);
  }
  if (connected === 0) throw new Error('no connection went through');
  context.result(`${connected} connections went through`);
}
