/**
 * Password hashes for basic authentication: scrypt (node:crypto), stored as
 * `scrypt$<N>$<r>$<p>$<base64 salt>$<base64 key>` so that the cost travels with the hash.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PREFIX = 'scrypt';
const KEY_LENGTH = 32;
const DEFAULT_COST = { N: 16384, r: 8, p: 1 };

/**
 * The cost of `hashMcpPassword()`.
 *
 * @publicApi
 */
export interface McpPasswordHashOptions {
  /** CPU/memory cost, a power of two. @default 16384 */
  N?: number;
  /** Block size. @default 8 */
  r?: number;
  /** Parallelization. @default 1 */
  p?: number;
}

function derive(password: string, salt: Buffer, cost: Required<McpPasswordHashOptions>): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * Hashes a password for `auth.basic.users[name].passwordHash`.
 *
 * @example
 * ```ts
 * const passwordHash = await hashMcpPassword('correct horse battery staple');
 * ```
 * @publicApi
 */
export async function hashMcpPassword(password: string, options: McpPasswordHashOptions = {}): Promise<string> {
  const cost = { ...DEFAULT_COST, ...options };
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return [PREFIX, cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedHash {
  cost: Required<McpPasswordHashOptions>;
  salt: Buffer;
  key: Buffer;
}

/** Reads a hash made by `hashMcpPassword()`; `undefined` when it is not one. */
export function parsePasswordHash(hash: string): ParsedHash | undefined {
  const parts = hash.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) {
    return undefined;
  }
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  const valid =
    [N, r, p].every((value) => Number.isInteger(value) && value > 0) &&
    (N & (N - 1)) === 0 &&
    N > 1 &&
    salt.length >= 8 &&
    key.length >= 16;
  return valid ? { cost: { N, r, p }, salt, key } : undefined;
}

/** Whether `password` matches a hash made by `hashMcpPassword()`, compared in constant time. */
export async function verifyMcpPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parsePasswordHash(hash);
  if (parsed === undefined) {
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.cost);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}
