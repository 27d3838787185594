/**
 * Who is calling, as the protocol knows it: the transports' authentication sets it, the engine
 * hands it to every handler, and sessions, tasks and request state belong to it.
 */

/**
 * Who is calling: set by the configured authentication, `anonymous` without one. The principal
 * owns sessions, tasks and request state.
 *
 * @publicApi
 */
export interface McpPrincipal {
  /** A stable identifier of the caller. */
  readonly id: string;
  /** The scopes granted to the caller. */
  readonly scopes: readonly string[];
  /** Claims or metadata from the authentication (token claims, key metadata...). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** `true` for the principal of unauthenticated calls. */
  readonly anonymous?: boolean;
  /**
   * Whom the per-principal bounds (sessions, streams, tasks) count this caller as; `id` when
   * absent. Anonymous callers over HTTP get `anonymous@<client address>`, so that one anonymous
   * client cannot use up what the others share. An authenticator may set it to group callers
   * (a tenant, say) under one quota.
   */
  readonly quotaKey?: string;
}

/** The principal of calls made without authentication. */
export const ANONYMOUS_PRINCIPAL: McpPrincipal = Object.freeze({
  id: 'anonymous',
  scopes: Object.freeze([]),
  anonymous: true,
});

/** The key the per-principal bounds count a caller under (see {@link McpPrincipal.quotaKey}). */
export function quotaKeyOf(principal: McpPrincipal): string {
  return principal.quotaKey ?? principal.id;
}

/** At most this many anonymous principals are remembered, one per client address. */
const ADDRESSES_KEPT = 4096;
const anonymousByAddress = new Map<string, McpPrincipal>();

/**
 * The anonymous principal of a client at `address`: the anonymous identity (`id` `anonymous`,
 * which owns what any anonymous caller may use), counted by the bounds under its address. One
 * frozen object per address, remembered so that a request makes none.
 */
export function anonymousAt(address: string | undefined): McpPrincipal {
  if (address === undefined || address === '') {
    return ANONYMOUS_PRINCIPAL;
  }
  let principal = anonymousByAddress.get(address);
  if (principal === undefined) {
    if (anonymousByAddress.size >= ADDRESSES_KEPT) {
      anonymousByAddress.clear();
    }
    principal = Object.freeze({ ...ANONYMOUS_PRINCIPAL, quotaKey: `anonymous@${address}` });
    anonymousByAddress.set(address, principal);
  }
  return principal;
}
