import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  randomInt,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from `alphabet` with crypto randomness. */
export function randomString(length: number, alphabet: string = BASE62): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export function randomBase64Url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** Lookup hash for high-entropy secrets (keys, tokens, device codes): no salt needed. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Derives an independent 32-byte key for one purpose from the server secret. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'skillet', purpose, 32));
}

export function hmacHex(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** AES-256-GCM; output is iv.tag.ciphertext, each base64url. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

export function decrypt(key: Buffer, sealed: string): string {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body) throw new Error('malformed ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

export interface PasswordHashing {
  /** log2 of scrypt's N. Stored with each hash, so changing it keeps old hashes valid. */
  logN: number;
}

function scryptAsync(password: string, salt: Buffer, logN: number): Promise<Buffer> {
  const N = 2 ** logN;
  const r = 8;
  return new Promise((resolve, reject) => {
    scrypt(password, salt, 64, { N, r, p: 1, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, options: PasswordHashing): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, options.logN);
  return `scrypt$${options.logN}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !logN || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), Number(logN));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
