/**
 * Who a server is among the application's servers: each `McpModule.forRoot()` /
 * `forRootAsync()` is one, known synchronously from the module extras.
 */
import type { Type } from '@nestjs/common';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_OPTION } from '../mcp.messages';
import type { McpModuleExtras } from '../interfaces/mcp-module-extras.interface';
import type { McpHttpPaths } from '../transports/http/http-paths';

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

/** Whether a server discovers the handlers of a module. */
export function serverCovers(identity: McpServerIdentity, module: Type | undefined): boolean {
  return identity.include === undefined || (module !== undefined && identity.include.includes(module));
}

/** Whether a server takes a handler: it covers the handler's module, and the handler names it if it names any. */
export function serverClaims(
  identity: McpServerIdentity,
  module: Type | undefined,
  servers: readonly string[] | undefined,
): boolean {
  return serverCovers(identity, module) && (servers === undefined || servers.includes(identity.name));
}
