/**
 * Where a server's Streamable HTTP endpoint is, for code outside the module (the testing kit, an
 * application's own clients): the full path the platform mounted it at.
 */
import type { INestApplicationContext } from '@nestjs/common';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import { defaultServerOf, serverIdentities } from '../../identity/mcp-servers';
import { normalizePath } from '../../identity/http-paths';
import type { McpServerIdentity } from '../../identity/server-identity';
import { MCP_SERVER_IDENTITY } from '../../shared/mcp.constants';
import { HttpPlatform } from './http-platform.service';

/**
 * The full path of a server's Streamable HTTP endpoint in an application, the one clients POST
 * to: the global prefix and the URI version included (`/api/v1/mcp`), as Express or Fastify
 * mounted it once the application was initialised. Before `app.init()` (or where the platform
 * hooks do not see the routes), the global prefix joined to the `path` option.
 * @param app - the application (or application context) that imports `McpModule`.
 * @param server - the server's `name`; omitted: the default server (the one `McpRegistry`
 *   injects by class).
 * @returns the path, with a leading `/`.
 * @throws McpConfigurationError when the application has no MCP server (of that name).
 * @example
 * ```ts
 * await app.init();
 * const path = getMcpEndpointPath(app, 'admin'); // '/api/admin-mcp'
 * ```
 * @publicApi
 */
export function getMcpEndpointPath(app: INestApplicationContext, server?: string): string {
  const modules = app.get(ModulesContainer, { strict: false });
  const identities = serverIdentities(modules);
  const identity =
    server === undefined ? defaultServerOf(identities) : identities.find((found) => found.name === server);
  if (identity === undefined) {
    const names = identities.map((found) => `"${found.name}"`).join(', ') || 'none';
    throw new McpConfigurationError(
      server === undefined
        ? 'The application has no MCP server: import McpModule.forRoot() in it.'
        : `The application has no MCP server named "${server}" (its servers: ${names}).`,
    );
  }
  const mounted = platformOf(modules, identity)?.pathsOf('streamable')[0];
  return (
    mounted ??
    normalizePath(
      [globalPrefixOf(app), identity.paths.streamable]
        .map((part) => part.replace(/^\/+|\/+$/g, ''))
        .filter((part) => part !== '')
        .join('/'),
    )
  );
}

/** The HTTP platform of the server's own module. */
function platformOf(modules: ModulesContainer, identity: McpServerIdentity): HttpPlatform | undefined {
  for (const module of modules.values()) {
    if (module.providers.get(MCP_SERVER_IDENTITY)?.instance === identity) {
      return module.providers.get(HttpPlatform)?.instance as HttpPlatform | undefined;
    }
  }
  return undefined;
}

function globalPrefixOf(app: INestApplicationContext): string {
  try {
    return app.get(ApplicationConfig, { strict: false }).getGlobalPrefix();
  } catch {
    // An application context has no HTTP configuration.
    return '';
  }
}
