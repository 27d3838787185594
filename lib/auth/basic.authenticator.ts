/**
 * `Authorization: Basic` (RFC 7617) with hashed passwords. An unknown user costs the same as a
 * known one: a dummy hash is checked in its place, so the time of the answer does not tell which
 * users exist.
 *
 * A password hash is slow on purpose, so a flood of guesses must not decide how many run: the
 * failures of each client address are limited before the hash runs (429), at most a few hashes
 * run at once and a bounded number wait (503 past it), and credentials verified lately are
 * admitted by a keyed digest, without a hash.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { RefusalLog } from '../protocol/bounds/refusal-log';
import { logText } from '../protocol/bounds/log-text';
import { BASIC_FAILURES_LIMIT, BASIC_HASHES_QUEUED } from '../shared/mcp.messages';
import type { ResolvedBasicOptions } from './auth-options';
import type { McpAuthRequest } from '../interfaces/mcp-auth-options.interface';
import { authorization, challenge, toPrincipal, type AuthOutcome, type Authenticator } from './authenticator';
import { clientAddress } from '../shared/client-address';
import { ConcurrencyGate } from './concurrency-gate';
import { FailureLimiter } from './failure-limiter';
import { hashMcpPassword, parsePasswordHash, verifyMcpPassword } from './password-hash';
import { VerifiedCredentials } from './verified-credentials';

interface BasicUser {
  readonly name: Buffer;
  readonly passwordHash: string;
  readonly principal: McpPrincipal;
}

/** What the refusals of the bounds log to; nothing by default. */
const SILENT = { warn: () => undefined, debug: () => undefined };

export class BasicAuthenticator implements Authenticator {
  readonly headers = ['authorization'] as const;
  private readonly users = new Map<string, BasicUser>();
  private readonly verify: (password: string, hash: string) => boolean | Promise<boolean>;
  private readonly challenge: string;
  private dummyHash: string | undefined;
  private readonly failures: FailureLimiter;
  private readonly hashes: ConcurrencyGate;
  private readonly verified: VerifiedCredentials;
  private readonly refusals: RefusalLog;

  constructor(
    private readonly options: ResolvedBasicOptions,
    logger: Pick<Logger, 'warn' | 'debug'> = SILENT,
    now: () => number = Date.now,
  ) {
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
    this.failures = new FailureLimiter(options.maxFailuresPerMinute, now);
    this.hashes = new ConcurrencyGate(options.maxConcurrentHashes, options.maxQueuedHashes);
    this.verified = new VerifiedCredentials(now);
    this.refusals = new RefusalLog(logger, undefined, now);
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
    const digest = this.verified.digest(decoded);
    const remembered = this.verified.find(digest);
    if (remembered !== undefined) {
      return { ok: true, principal: remembered };
    }
    const source = clientAddress(request.raw) ?? '';
    const waitMs = this.failures.take(source);
    if (waitMs > 0) {
      return this.tooManyFailures(source, waitMs);
    }
    const name = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const user = this.users.get(name);
    // The password is checked against the dummy hash for an unknown user: the same work either way.
    const checked = this.hashes.run(() => this.verify(password, user?.passwordHash ?? this.dummyHash!));
    if (checked === undefined) {
      this.failures.giveBack(source);
      return this.tooManyWaiting(source);
    }
    const matches = await checked;
    const named = user !== undefined && sameName(user.name, name);
    if (!matches || !named) {
      return this.refuse('invalid_token', 'The user name or password is not valid');
    }
    this.failures.giveBack(source);
    this.verified.remember(digest, user.principal);
    return { ok: true, principal: user.principal };
  }

  private refuse(error: string, description: string): AuthOutcome {
    return { ok: false, status: 401, challenge: this.challenge, error, description };
  }

  private tooManyFailures(source: string, waitMs: number): AuthOutcome {
    const description = BASIC_FAILURES_LIMIT(this.options.maxFailuresPerMinute);
    this.refusals.warn('basic-failures', `Refused basic credentials from ${logText(source)} with 429: ${description}`);
    return {
      ok: false,
      status: 429,
      error: 'too_many_requests',
      description,
      retryAfterSec: Math.ceil(waitMs / 1000),
    };
  }

  private tooManyWaiting(source: string): AuthOutcome {
    const description = BASIC_HASHES_QUEUED(this.options.maxQueuedHashes);
    this.refusals.warn('basic-queued', `Refused basic credentials from ${logText(source)} with 503: ${description}`);
    return { ok: false, status: 503, error: 'temporarily_unavailable', description, retryAfterSec: 1 };
  }
}

function sameName(stored: Buffer, presented: string): boolean {
  const candidate = Buffer.from(presented, 'utf8');
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}
