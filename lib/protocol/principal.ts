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
}

/** The principal of calls made without authentication. */
export const ANONYMOUS_PRINCIPAL: McpPrincipal = Object.freeze({
  id: 'anonymous',
  scopes: Object.freeze([]),
  anonymous: true,
});
