/**
 * A table of secrets (static bearer tokens, API keys) looked up in constant time: every entry is
 * kept as the SHA-256 digest of its secret, a presented secret is digested the same way, and the
 * digests are compared with `timingSafeEqual`. The time of a lookup depends only on the number
 * of entries, never on how much of a secret a caller guessed right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { McpPrincipal } from '../protocol/calls/call-context';

const DIGEST_PREFIX = 'sha256:';
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** The hex SHA-256 digest of a secret, as `keys` of `McpApiKeyOptions` accept it (`sha256:<hex>`). */
export function mcpSecretDigest(secret: string): string {
  return `${DIGEST_PREFIX}${digest(secret).toString('hex')}`;
}

export class CredentialTable {
  private readonly entries: Array<{ digest: Buffer; principal: McpPrincipal }> = [];

  /** Whether `secret` is given as a digest (`sha256:...`). */
  static isDigest(secret: string): boolean {
    return secret.toLowerCase().startsWith(DIGEST_PREFIX);
  }

  /** Whether a `sha256:` secret is well formed. */
  static isValidDigest(secret: string): boolean {
    return HEX_DIGEST.test(secret.slice(DIGEST_PREFIX.length));
  }

  /** Adds a secret, or the digest of one written `sha256:<hex>`. */
  add(secret: string, principal: McpPrincipal): void {
    const stored = CredentialTable.isDigest(secret)
      ? Buffer.from(secret.slice(DIGEST_PREFIX.length), 'hex')
      : digest(secret);
    this.entries.push({ digest: stored, principal });
  }

  /** The principal of `secret`, after comparing it with every entry. */
  find(secret: string): McpPrincipal | undefined {
    const presented = digest(secret);
    let found: McpPrincipal | undefined;
    for (const entry of this.entries) {
      // No early exit: every entry is compared, whichever matches.
      if (timingSafeEqual(entry.digest, presented) && found === undefined) {
        found = entry.principal;
      }
    }
    return found;
  }
}
