/**
 * Credentials verified lately, so that a caller who signed in does not pay a password hash on
 * every request (nor wait behind a flood of guesses for one). Kept by an HMAC of the credentials
 * with a key of this process, never as they are: the table tells nothing without the key, and a
 * lookup costs one HMAC.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { McpPrincipal } from '../protocol/calls/call-context';

/** How long verified credentials are admitted without a hash. */
export const VERIFIED_TTL_MS = 5 * 60_000;
/** How many are remembered at most; the oldest is forgotten first. */
const MAX_ENTRIES = 1024;

export class VerifiedCredentials {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { principal: McpPrincipal; until: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = VERIFIED_TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The key `credentials` are remembered under. */
  digest(credentials: string): string {
    return createHmac('sha256', this.key).update(credentials, 'utf8').digest('base64');
  }

  /** The principal of credentials verified within the last `ttlMs`, by their digest. */
  find(digest: string): McpPrincipal | undefined {
    const entry = this.entries.get(digest);
    if (entry === undefined) {
      return undefined;
    }
    if (entry.until <= this.now()) {
      this.entries.delete(digest);
      return undefined;
    }
    return entry.principal;
  }

  /** Remembers credentials just verified, by their digest. */
  remember(digest: string, principal: McpPrincipal): void {
    this.entries.delete(digest);
    if (this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(digest, { principal, until: this.now() + this.ttlMs });
  }
}
