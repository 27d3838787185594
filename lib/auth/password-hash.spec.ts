import { hashMcpPassword, parsePasswordHash, verifyMcpPassword } from './password-hash';

/** A low cost, so that the suite stays fast (the cost travels with the hash). */
const CHEAP = { N: 1024, r: 8, p: 1 };
const BASE64 = '[A-Za-z0-9+/]+={0,2}';

/** The fields of a hash string. */
function fieldsOf(hash: string) {
  const [prefix, N, r, p, salt, key] = hash.split('$');
  return { prefix, N, r, p, salt, key };
}

/** Flips one bit of the first byte of a base64 field. */
function flipped(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] ^= 1;
  return bytes.toString('base64');
}

describe('hashMcpPassword / verifyMcpPassword', () => {
  let hash: string;

  beforeAll(async () => {
    hash = await hashMcpPassword('correct horse battery staple', CHEAP);
  });

  it('verifies the password it hashed', async () => {
    await expect(verifyMcpPassword('correct horse battery staple', hash)).resolves.toBe(true);
  });

  it('uses the default cost (N=16384, r=8, p=1) and writes scrypt$N$r$p$salt$key', async () => {
    const hashed = await hashMcpPassword('pw');
    expect(hashed).toMatch(new RegExp(`^scrypt\\$16384\\$8\\$1\\$${BASE64}\\$${BASE64}$`));
    const { salt, key } = fieldsOf(hashed);
    expect({ salt: Buffer.from(salt, 'base64').length, key: Buffer.from(key, 'base64').length }).toEqual({
      salt: 16,
      key: 32,
    });
    await expect(verifyMcpPassword('pw', hashed)).resolves.toBe(true);
  });

  it('refuses a wrong password, another case, a prefix and an extension of it', async () => {
    for (const wrong of ['correct horse battery stapler', 'Correct horse battery staple', 'correct horse', '']) {
      await expect(verifyMcpPassword(wrong, hash)).resolves.toBe(false);
    }
  });

  it('salts every hash: two hashes of one password differ, both verify', async () => {
    const again = await hashMcpPassword('correct horse battery staple', CHEAP);
    expect(again).not.toBe(hash);
    expect(fieldsOf(again).salt).not.toBe(fieldsOf(hash).salt);
    await expect(verifyMcpPassword('correct horse battery staple', again)).resolves.toBe(true);
  });

  it('round-trips an empty password and a non-ASCII one', async () => {
    const empty = await hashMcpPassword('', CHEAP);
    await expect(verifyMcpPassword('', empty)).resolves.toBe(true);
    await expect(verifyMcpPassword(' ', empty)).resolves.toBe(false);
    const unicode = await hashMcpPassword('пароль 密码 🔑', CHEAP);
    await expect(verifyMcpPassword('пароль 密码 🔑', unicode)).resolves.toBe(true);
    await expect(verifyMcpPassword('пароль 密码', unicode)).resolves.toBe(false);
  });

  describe('cost parameters', () => {
    it('are written into the hash and used to verify it', async () => {
      const hashed = await hashMcpPassword('pw', { N: 512, r: 4, p: 2 });
      expect(fieldsOf(hashed)).toEqual(expect.objectContaining({ prefix: 'scrypt', N: '512', r: '4', p: '2' }));
      expect(parsePasswordHash(hashed)?.cost).toEqual({ N: 512, r: 4, p: 2 });
      await expect(verifyMcpPassword('pw', hashed)).resolves.toBe(true);
    });

    it('fill in the defaults of those not given', async () => {
      const hashed = await hashMcpPassword('pw', { N: 256 });
      expect(parsePasswordHash(hashed)?.cost).toEqual({ N: 256, r: 8, p: 1 });
    });

    it('cannot be lowered in a stored hash: another cost derives another key', async () => {
      const { salt, key } = fieldsOf(hash);
      await expect(
        verifyMcpPassword('correct horse battery staple', ['scrypt', 512, 8, 1, salt, key].join('$')),
      ).resolves.toBe(false);
      await expect(
        verifyMcpPassword('correct horse battery staple', ['scrypt', 1024, 8, 2, salt, key].join('$')),
      ).resolves.toBe(false);
    });
  });

  describe('tampered hashes', () => {
    it('a changed key refuses the right password', async () => {
      const { salt, key } = fieldsOf(hash);
      const tampered = ['scrypt', 1024, 8, 1, salt, flipped(key)].join('$');
      await expect(verifyMcpPassword('correct horse battery staple', tampered)).resolves.toBe(false);
    });

    it('a changed salt refuses the right password', async () => {
      const { salt, key } = fieldsOf(hash);
      const tampered = ['scrypt', 1024, 8, 1, flipped(salt), key].join('$');
      await expect(verifyMcpPassword('correct horse battery staple', tampered)).resolves.toBe(false);
    });

    it("another hash's salt refuses the right password", async () => {
      const other = await hashMcpPassword('correct horse battery staple', CHEAP);
      const tampered = ['scrypt', 1024, 8, 1, fieldsOf(other).salt, fieldsOf(hash).key].join('$');
      await expect(verifyMcpPassword('correct horse battery staple', tampered)).resolves.toBe(false);
    });

    it('a key of another length refuses (no exception)', async () => {
      const { salt, key } = fieldsOf(hash);
      const longer = Buffer.concat([Buffer.from(key, 'base64'), Buffer.alloc(8)]).toString('base64');
      await expect(
        verifyMcpPassword('correct horse battery staple', ['scrypt', 1024, 8, 1, salt, longer].join('$')),
      ).resolves.toBe(false);
    });
  });

  describe('malformed hashes', () => {
    const salt = Buffer.alloc(16, 1).toString('base64');
    const key = Buffer.alloc(32, 2).toString('base64');
    const rows: Array<[string, string]> = [
      ['empty', ''],
      ['a plain password', 'correct horse battery staple'],
      ['a bcrypt hash', '$2b$10$abcdefghijklmnopqrstuuVWXYZ0123456789abcdefghijklmno'],
      ['another prefix', ['argon2', 1024, 8, 1, salt, key].join('$')],
      ['the prefix in capitals', ['SCRYPT', 1024, 8, 1, salt, key].join('$')],
      ['five fields', ['scrypt', 1024, 8, 1, salt].join('$')],
      ['seven fields', ['scrypt', 1024, 8, 1, salt, key, 'x'].join('$')],
      ['N not a power of two', ['scrypt', 1000, 8, 1, salt, key].join('$')],
      ['N = 1', ['scrypt', 1, 8, 1, salt, key].join('$')],
      ['N = 0', ['scrypt', 0, 8, 1, salt, key].join('$')],
      ['N negative', ['scrypt', -1024, 8, 1, salt, key].join('$')],
      ['N not a number', ['scrypt', 'abc', 8, 1, salt, key].join('$')],
      ['r = 0', ['scrypt', 1024, 0, 1, salt, key].join('$')],
      ['r fractional', ['scrypt', 1024, 8.5, 1, salt, key].join('$')],
      ['p = 0', ['scrypt', 1024, 8, 0, salt, key].join('$')],
      ['p empty', ['scrypt', 1024, 8, '', salt, key].join('$')],
      ['a salt of 7 bytes', ['scrypt', 1024, 8, 1, Buffer.alloc(7).toString('base64'), key].join('$')],
      ['an empty salt', ['scrypt', 1024, 8, 1, '', key].join('$')],
      ['a key of 15 bytes', ['scrypt', 1024, 8, 1, salt, Buffer.alloc(15).toString('base64')].join('$')],
      ['an empty key', ['scrypt', 1024, 8, 1, salt, ''].join('$')],
    ];

    it.each(rows)('%s: not parsed, and no password verifies against it', async (_title, malformed) => {
      expect(parsePasswordHash(malformed)).toBeUndefined();
      await expect(verifyMcpPassword('correct horse battery staple', malformed)).resolves.toBe(false);
      await expect(verifyMcpPassword('', malformed)).resolves.toBe(false);
    });

    it('the well-formed control of those rows is parsed', () => {
      expect(parsePasswordHash(['scrypt', 1024, 8, 1, salt, key].join('$'))).toEqual({
        cost: { N: 1024, r: 8, p: 1 },
        salt: Buffer.alloc(16, 1),
        key: Buffer.alloc(32, 2),
      });
    });
  });

  describe('NFKC normalization', () => {
    const composed = 'caf\u00e9'; // é as one code point
    const decomposed = 'cafe\u0301'; // e + combining acute accent

    it('the two spellings differ as strings', () => {
      expect(composed).not.toBe(decomposed);
    });

    it('a hash of the composed form verifies the decomposed form', async () => {
      const hashed = await hashMcpPassword(composed, CHEAP);
      await expect(verifyMcpPassword(decomposed, hashed)).resolves.toBe(true);
      await expect(verifyMcpPassword(composed, hashed)).resolves.toBe(true);
    });

    it('a hash of the decomposed form verifies the composed form', async () => {
      const hashed = await hashMcpPassword(decomposed, CHEAP);
      await expect(verifyMcpPassword(composed, hashed)).resolves.toBe(true);
    });

    it('compatibility forms match too (the "ﬁ" ligature and "fi"; full-width digits)', async () => {
      const hashed = await hashMcpPassword('ﬁle１２３', CHEAP);
      await expect(verifyMcpPassword('file123', hashed)).resolves.toBe(true);
    });

    it('normalization does not make the accent optional', async () => {
      const hashed = await hashMcpPassword(composed, CHEAP);
      await expect(verifyMcpPassword('cafe', hashed)).resolves.toBe(false);
    });
  });
});
