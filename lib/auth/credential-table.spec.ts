import { createHash } from 'node:crypto';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { CredentialTable, mcpSecretDigest } from './credential-table';

const CI: McpPrincipal = { id: 'ci', scopes: ['notes:read'] };
const DEPLOY: McpPrincipal = { id: 'deploy', scopes: [] };
const OPS: McpPrincipal = { id: 'ops', scopes: ['admin'], claims: { team: 'ops' } };

describe('mcpSecretDigest', () => {
  it('is "sha256:" and the lower-case hex SHA-256 of the UTF-8 secret', () => {
    // The FIPS 180-2 test vector for "abc".
    expect(mcpSecretDigest('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(mcpSecretDigest('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(mcpSecretDigest('clé 🔑')).toBe(`sha256:${createHash('sha256').update('clé 🔑', 'utf8').digest('hex')}`);
  });

  it('is a well-formed digest entry', () => {
    const digest = mcpSecretDigest('any secret');
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(CredentialTable.isDigest(digest)).toBe(true);
    expect(CredentialTable.isValidDigest(digest)).toBe(true);
  });
});

describe('CredentialTable.isDigest / isValidDigest', () => {
  it.each([
    ['sha256:' + 'a'.repeat(64), true, true],
    ['SHA256:' + 'A'.repeat(64), true, true],
    ['Sha256:' + '0f'.repeat(32), true, true],
    ['sha256:' + 'a'.repeat(63), true, false],
    ['sha256:' + 'a'.repeat(65), true, false],
    ['sha256:' + 'g'.repeat(64), true, false],
    ['sha256:', true, false],
    ['sha512:' + 'a'.repeat(64), false, false],
    ['plain-key', false, false],
  ])('%s: digest %s, valid %s', (secret, isDigest, isValid) => {
    expect(CredentialTable.isDigest(secret)).toBe(isDigest);
    expect(CredentialTable.isDigest(secret) && CredentialTable.isValidDigest(secret)).toBe(isValid);
  });
});

describe('CredentialTable', () => {
  describe('accepting digests (static bearer tokens, API keys)', () => {
    let table: CredentialTable;

    beforeEach(() => {
      table = new CredentialTable();
      table.add('plain-key', CI);
      table.add(mcpSecretDigest('hidden-key'), DEPLOY);
      table.add(mcpSecretDigest('upper-key').toUpperCase(), OPS);
    });

    it('finds a plain entry by its secret', () => {
      expect(table.find('plain-key')).toBe(CI);
    });

    it('finds a digest entry by the secret it is the digest of', () => {
      expect(table.find('hidden-key')).toBe(DEPLOY);
    });

    it('finds a digest entry written in capitals ("SHA256:" and upper-case hex)', () => {
      expect(table.find('upper-key')).toBe(OPS);
    });

    it.each([
      ['an unknown secret', 'unknown'],
      ['the empty string', ''],
      ['a prefix of a secret', 'plain-ke'],
      ['an extension of a secret', 'plain-key '],
      ['a secret in other case', 'PLAIN-KEY'],
    ])('answers undefined for %s', (_title, secret) => {
      expect(table.find(secret)).toBeUndefined();
    });

    it('does not take the digest string itself as a secret', () => {
      // Whoever reads the configuration holds no usable credential.
      expect(table.find(mcpSecretDigest('hidden-key'))).toBeUndefined();
      expect(table.find(mcpSecretDigest('upper-key').toUpperCase())).toBeUndefined();
    });

    it("does not take a plain entry's digest as its secret", () => {
      expect(table.find(mcpSecretDigest('plain-key'))).toBeUndefined();
    });

    it('answers the first entry when two stand for one secret', () => {
      const duplicated = new CredentialTable();
      duplicated.add('shared', CI);
      duplicated.add(mcpSecretDigest('shared'), DEPLOY);
      expect(duplicated.find('shared')).toBe(CI);
    });

    it('finds nothing when empty', () => {
      expect(new CredentialTable().find('plain-key')).toBeUndefined();
    });
  });
});
