import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

function attempt(what, action) {
  try {
    action();
    return `${what}: allowed`;
  } catch (error) {
    return `${what}: refused (${error.code ?? error.message})`;
  }
}

export default async function run({ message }) {
  message(attempt('read /etc/hostname', () => readFileSync('/etc/hostname')));
  message(attempt('write /tmp/skillet-escape', () => writeFileSync('/tmp/skillet-escape', 'x')));
  message(attempt('spawn a process', () => execSync('true')));
  message(`environment keys: ${Object.keys(process.env).join(',') || 'none'}`);
}
