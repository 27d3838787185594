/**
 * `Authorization: Basic` (RFC 7617) with hashed passwords. An unknown user costs the same as a
 * known one: a dummy hash is checked in its place, so the time of the answer does not tell which
 * users exist.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { McpPrincipal } from '../protocol/call-context';
import type { McpAuthRequest, McpBasicOptions } from './mcp-auth-options.interface';
import { authorization, challenge, toPrincipal, type AuthOutcome, type Authenticator } from './authenticator';
import { hashMcpPassword, parsePasswordHash, verifyMcpPassword } from './password-hash';

interface BasicUser {
  readonly name: Buffer;
  readonly passwordHash: string;
  readonly principal: McpPrincipal;
}

export class BasicAuthenticator implements Authenticator {
  readonly headers = ['authorization'] as const;
  private readonly users = new Map<string, BasicUser>();
  private readonly verify: (password: string, hash: string) => boolean | Promise<boolean>;
  private readonly challenge: string;
  private dummyHash: string | undefined;

  constructor(options: McpBasicOptions) {
    for (const [name, user] of Object.entries(options.users)) {
      this.users.set(name, {
        name: Buffer.from(name, 'utf8'),
        passwordHash: user.passwordHash,
        principal: toPrincipal({ id: user.id ?? name, scopes: user.scopes, claims: user.claims }),
      });
    }
    this.verify = options.verify ?? verifyMcpPassword;
    this.dummyHash = options.dummyHash;
    this.challenge = challenge('Basic', [
      ['realm', options.realm ?? 'mcp'],
      ['charset', 'UTF-8'],
    ]);
  }

  /** Makes the dummy hash (with the cost of the first user's hash) unless one was given. */
  async init(): Promise<void> {
    if (this.dummyHash !== undefined) {
      return;
    }
    const first = this.users.values().next().value;
    const cost = first === undefined ? undefined : parsePasswordHash(first.passwordHash)?.cost;
    this.dummyHash = await hashMcpPassword(randomBytes(16).toString('hex'), cost);
  }

  async authenticate(request: McpAuthRequest): Promise<AuthOutcome> {
    const credentials = authorization(request, 'basic');
    if (credentials === undefined || credentials.length === 0) {
      return this.refuse('invalid_request', 'Authentication required');
    }
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) {
      return this.refuse('invalid_request', 'Malformed basic credentials');
    }
    const name = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const user = this.users.get(name);
    // The password is checked against the dummy hash for an unknown user: the same work either way.
    const matches = await this.verify(password, user?.passwordHash ?? this.dummyHash!);
    const named = user !== undefined && sameName(user.name, name);
    if (!matches || !named) {
      return this.refuse('invalid_token', 'The user name or password is not valid');
    }
    return { ok: true, principal: user.principal };
  }

  private refuse(error: string, description: string): AuthOutcome {
    return { ok: false, status: 401, challenge: this.challenge, error, description };
  }
}

function sameName(stored: Buffer, presented: string): boolean {
  const candidate = Buffer.from(presented, 'utf8');
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}
