/**
 * What every authentication provider is to the transports and guards: a request in, a principal
 * or a refusal out. The refusal carries what the HTTP answer needs (status, challenge, body);
 * its description is ours, never the text of an internal error.
 */
import type { Logger } from '@nestjs/common';
import type { McpPrincipal } from '../protocol/calls/call-context';
import { logMessage } from '../protocol/bounds/log-text';
import type { McpAuthRequest, McpPrincipalInit } from '../interfaces/mcp-auth-options.interface';

/** A refused request: the HTTP status, the `WWW-Authenticate` value and the OAuth error. */
export interface AuthRefusal {
  readonly ok: false;
  /** 401, 403, 429 or 503 from the built-in providers; any 4xx or 5xx from an app guard. */
  readonly status: number;
  /** The `WWW-Authenticate` value, when the status calls for one. */
  readonly challenge?: string;
  /**
   * A bound of the provider was reached (too many failures from an address, too many checks
   * waiting): when to retry (`Retry-After`, in seconds). The MCP endpoints answer it as any
   * bound, a JSON-RPC error whose message (`description`) names the option.
   */
  readonly retryAfterSec?: number;
  /** The OAuth error code of the body (`invalid_token`, `invalid_request`...). */
  readonly error: string;
  readonly description: string;
  /**
   * The JSON-RPC error code of the body, for a refusal answered as a JSON-RPC error (an app
   * guard's, `auth.guard`) rather than with the OAuth error body.
   */
  readonly code?: number;
}

export type AuthOutcome = { readonly ok: true; readonly principal: McpPrincipal } | AuthRefusal;

/** One configured provider. */
export interface Authenticator {
  /** The header names that carry credentials, for CORS preflights. */
  readonly headers: readonly string[];
  authenticate(request: McpAuthRequest): Promise<AuthOutcome>;
}

/** Turns a configured principal into an `McpPrincipal`. */
export function toPrincipal(init: McpPrincipalInit): McpPrincipal {
  return Object.freeze({
    id: init.id,
    scopes: Object.freeze([...(init.scopes ?? [])]),
    ...(init.claims === undefined ? {} : { claims: Object.freeze({ ...init.claims }) }),
  });
}

/** Whether a provider's answer is a principal it may stand for (a non-empty string id). */
export function isPrincipalInit(value: unknown): value is McpPrincipalInit {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const { id, scopes } = value as { id?: unknown; scopes?: unknown };
  return (
    typeof id === 'string' &&
    id.length > 0 &&
    (scopes === undefined || (Array.isArray(scopes) && scopes.every((scope) => typeof scope === 'string')))
  );
}

/**
 * The principal that code of the application (a token verifier, a custom provider) answers with,
 * or `undefined` when it refuses, throws (logged; the message never reaches the client) or
 * answers something that is not a principal.
 */
export async function principalFrom(
  answer: () => unknown,
  logger: Logger,
  who: string,
): Promise<McpPrincipal | undefined> {
  let value: unknown;
  try {
    value = await answer();
  } catch (error) {
    logger.warn(`${who} failed: ${logMessage(error)}`);
    return undefined;
  }
  if (value === null || value === undefined) {
    return undefined;
  }
  if (!isPrincipalInit(value)) {
    logger.error(`${who} returned something that is not a principal ({ id, scopes?, claims? })`);
    return undefined;
  }
  return toPrincipal(value);
}

/** An auth-param value as a quoted string (RFC 9110 §5.6.4). */
export function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/** A challenge: the scheme, then `name="value"` pairs (those without a value are left out). */
export function challenge(scheme: string, params: ReadonlyArray<[string, string | undefined]>): string {
  const parts = params.filter((pair): pair is [string, string] => pair[1] !== undefined);
  return parts.length === 0
    ? scheme
    : `${scheme} ${parts.map(([name, value]) => `${name}=${quoted(value)}`).join(', ')}`;
}

/** The first value of a header. */
export function headerOf(request: McpAuthRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The credentials of an `Authorization` header of `scheme` (case-insensitive), `undefined` when
 * the header is absent or names another scheme, `''` when the scheme has no credentials.
 */
export function authorization(request: McpAuthRequest, scheme: string): string | undefined {
  const value = headerOf(request, 'authorization');
  if (value === undefined) {
    return undefined;
  }
  const trimmed = value.trim();
  const space = trimmed.indexOf(' ');
  const name = space === -1 ? trimmed : trimmed.slice(0, space);
  return name.toLowerCase() === scheme.toLowerCase()
    ? space === -1
      ? ''
      : trimmed.slice(space + 1).trim()
    : undefined;
}
