/**
 * The `console` extra: whether a server serves the MCP console, and where. Known synchronously
 * (like the endpoint paths), because the console's controller is part of the module graph.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpConsoleOptions, McpModuleExtras } from '../interfaces/mcp-module-extras.interface';
import { CONSOLE_IN_PRODUCTION } from '../shared/mcp.messages';
import { fail } from '../shared/option-checks';
import { checkPath, endpointPathOptions, normalizePath, type McpHttpPaths } from '../identity/http-paths';

/** The console of one server, once checked. */
export interface ConsoleSettings {
  /** The page's path, before the global prefix and versioning; its files are under `<path>/assets/`. */
  readonly path: string;
  readonly allowInProduction: boolean;
}

/** `<endpoint path>/console`: `mcp/console` for `mcp`, `console` for an endpoint at the root. */
export function defaultConsolePath(streamable: string): string {
  return `${normalizePath(streamable).slice(1)}/console`.replace(/^\/+/, '');
}

/**
 * Reads and checks the `console` extra: `undefined` when the console is off (the default), else
 * its path and whether it may run in production. A bad value, a path one of the server's
 * endpoints already has, or `NODE_ENV=production` without `allowInProduction` stops the
 * application with a `McpConfigurationError` naming the option.
 *
 * @param paths the server's endpoint paths (the default console path derives from them).
 * @param env the environment `NODE_ENV` is read from.
 */
export function resolveConsoleSettings(
  extras: McpModuleExtras,
  paths: McpHttpPaths,
  env: NodeJS.ProcessEnv = process.env,
): ConsoleSettings | undefined {
  const value = extras.console as unknown;
  if (value === undefined || value === false) {
    return undefined;
  }
  if (value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    fail('console', 'must be true, false or { path?: string, allowInProduction?: boolean }');
  }
  const options: McpConsoleOptions = value === true ? {} : value;
  const allowInProduction: unknown = options.allowInProduction === undefined ? false : options.allowInProduction;
  if (typeof allowInProduction !== 'boolean') {
    fail('console.allowInProduction', 'must be a boolean');
  }
  const path = checkPath(options.path, 'console.path') ?? defaultConsolePath(paths.streamable);
  for (const [option, taken] of endpointPathOptions(paths)) {
    if (normalizePath(taken) === normalizePath(path)) {
      fail('console.path', `is the same path as ${option} (${taken})`);
    }
  }
  if (env.NODE_ENV === 'production' && !allowInProduction) {
    throw new McpConfigurationError(CONSOLE_IN_PRODUCTION(extras.name ?? 'default'));
  }
  return { path, allowInProduction };
}
