/**
 * Who a server is among the application's servers: each `McpModule.forRoot()` /
 * `forRootAsync()` is one, known synchronously from the module extras.
 */
import type { Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_OPTION } from '../shared/mcp.messages';
import type { McpModuleExtras } from '../interfaces/mcp-module-extras.interface';
import type { McpHttpPaths } from './http-paths';

/** The name of a server `forRootAsync()` was not given a name for. */
export const DEFAULT_SERVER_NAME = 'default';

/** One server of the application (`MCP_SERVER_IDENTITY` in its module). */
export interface McpServerIdentity {
  /** Its name: tokens, `servers` of handler decorators and the Redis key prefix go by it. */
  readonly name: string;
  /** Its HTTP paths, before the global prefix and versioning. */
  readonly paths: McpHttpPaths;
  /** The path of its console (the `console` extra), before the global prefix; none when off. */
  readonly consolePath?: string;
  /** The modules it discovers handlers in; all of the application's without it. */
  readonly include?: readonly Type[];
  /** Whether its module is global: only a global server can be the default one. */
  readonly global: boolean;
  /** `file:line:column` of its `forRoot` call, when the stack shows it. */
  readonly site?: string;
  /** When its `forRoot` was called, among every call of the process: the first one is the default. */
  readonly order: number;
}

/** Counts the `forRoot` / `forRootAsync` calls: their order is the servers' order. */
let calls = 0;

/**
 * Reads the identity from the extras (in `forRoot`, the options themselves). It is checked at
 * startup (`assertValidIdentity`, from `assertDistinctServers`), where a bad option stops the application like any other.
 */
export function resolveServerIdentity(
  extras: McpModuleExtras,
  paths: McpHttpPaths,
  global: boolean,
  site: string | undefined,
  consolePath?: string,
): McpServerIdentity {
  calls += 1;
  return {
    name: extras.name ?? DEFAULT_SERVER_NAME,
    paths,
    ...(consolePath === undefined ? {} : { consolePath }),
    include: extras.include,
    global,
    site,
    order: calls,
  };
}

/** Throws for a name or an `include` that cannot be. */
export function assertValidIdentity(identity: McpServerIdentity): void {
  const { name, include } = identity;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new McpConfigurationError(INVALID_OPTION('name', 'must be a non-empty string'));
  }
  if (
    include !== undefined &&
    (!Array.isArray(include) || include.length === 0 || include.some((module) => typeof module !== 'function'))
  ) {
    throw new McpConfigurationError(
      INVALID_OPTION('include', `of server "${name}" must be a non-empty list of module classes`),
    );
  }
}

/**
 * The servers that own a handler, among all of the application's: an `include` draws an auth
 * boundary, so a server without one must not serve what another server claims.
 * 1. The servers its decorator names (`servers`), whatever their `include`.
 * 2. Else the servers whose `include` names its module.
 * 3. Else the servers without `include`.
 * None: no server takes it, a startup error ({@link placementFault} says why).
 */
export function ownersOf(
  identities: readonly McpServerIdentity[],
  module: Type | undefined,
  named: readonly string[] | undefined,
): McpServerIdentity[] {
  if (named !== undefined) {
    return identities.filter((identity) => named.includes(identity.name));
  }
  const including = identities.filter(
    (identity) => module !== undefined && identity.include !== undefined && identity.include.includes(module),
  );
  return including.length > 0 ? including : identities.filter((identity) => identity.include === undefined);
}

/** Whether `identity` is one of the owners of a handler ({@link ownersOf}). */
export function serverTakes(
  identity: McpServerIdentity,
  identities: readonly McpServerIdentity[],
  module: Type | undefined,
  named: readonly string[] | undefined,
): boolean {
  return ownersOf(identities, module, named).some((owner) => owner.name === identity.name);
}

/**
 * Why a handler's place is wrong, for the startup error: its `servers` name a server the
 * application does not have (a typo would quietly take it off that server), or no server owns it
 * ({@link ownersOf}). `undefined` when it is fine; `where` is its `Class.method`.
 */
export function placementFault(
  where: string,
  identities: readonly McpServerIdentity[],
  module: Type | undefined,
  named: readonly string[] | undefined,
): string | undefined {
  const known = identities.map((identity) => `"${identity.name}"`).join(', ');
  const unknown = named?.filter((name) => !identities.some((identity) => identity.name === name)) ?? [];
  if (unknown.length > 0) {
    return `${where} names ${unknown.map((name) => `"${name}"`).join(', ')} in servers, and the servers are ${known}`;
  }
  if (ownersOf(identities, module, named).length > 0) {
    return undefined;
  }
  if (named !== undefined) {
    return `${where} names no server in servers (an empty list), and the servers are ${known}`;
  }
  return (
    `${where} is in ${module?.name ?? 'an unknown module'}, which no server's include names, ` +
    'and every server has an include (a server without include takes the handlers no include names)'
  );
}
