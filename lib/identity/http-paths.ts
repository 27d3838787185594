/**
 * The HTTP endpoints a module serves, from the module extras: known synchronously, because the
 * controllers are part of the module graph.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_OPTION } from '../shared/mcp.messages';
import type { McpModuleExtras } from '../interfaces/mcp-module-options.interface';

export interface McpHttpPaths {
  /** The Streamable HTTP endpoint. */
  readonly streamable: string;
  /** The simple POST-only endpoint, when enabled. */
  readonly simple?: string;
  /** The 2024-11-05 HTTP+SSE pair, when enabled. */
  readonly sse?: { readonly events: string; readonly messages: string };
}

/** `/a/b` for `a/b`, `/a/b/`, `//a/b`: how paths are compared. */
export function normalizePath(path: string): string {
  return `/${path.replace(/^\/+|\/+$/g, '')}`;
}

/**
 * Checks one path option: `undefined` when not given, else a non-empty URL path without query,
 * fragment or spaces (a bad one stops the application, naming `option`).
 */
export function checkPath(value: unknown, option: string): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || value.trim() === '' || /[?#\s]/.test(value)) {
    throw new McpConfigurationError(INVALID_OPTION(option, 'must be a non-empty URL path without query or spaces'));
  }
  return value;
}

/** Reads and checks the paths of the extras; a bad combination stops the application. */
export function resolveHttpPaths(extras: McpModuleExtras, defaultPath: string): McpHttpPaths {
  const streamable = checkPath(extras.path, 'path') ?? defaultPath;
  const simple = checkPath(extras.simpleHttpPath, 'simpleHttpPath');
  const events = checkPath(extras.ssePath, 'ssePath');
  const messages = checkPath(extras.sseMessagesPath, 'sseMessagesPath');
  if ((events === undefined) !== (messages === undefined)) {
    throw new McpConfigurationError(
      INVALID_OPTION(
        events === undefined ? 'ssePath' : 'sseMessagesPath',
        'is needed with the other: the SSE pair takes both paths',
      ),
    );
  }
  const paths: McpHttpPaths = {
    streamable,
    simple,
    sse: events === undefined || messages === undefined ? undefined : { events, messages },
  };
  const taken = new Map<string, string>();
  for (const [option, value] of endpointPathOptions(paths)) {
    const other = taken.get(normalizePath(value));
    if (other !== undefined) {
      throw new McpConfigurationError(INVALID_OPTION(option, `is the same path as ${other} (${value})`));
    }
    taken.set(normalizePath(value), option);
  }
  return paths;
}

/**
 * The paths of a server's endpoints, each with the option that set it, in the order of the
 * options: what the path checks (within a server, between servers, against the console) go by.
 */
export function endpointPathOptions(paths: McpHttpPaths): Array<[option: string, path: string]> {
  const named: Array<[string, string | undefined]> = [
    ['path', paths.streamable],
    ['simpleHttpPath', paths.simple],
    ['ssePath', paths.sse?.events],
    ['sseMessagesPath', paths.sse?.messages],
  ];
  return named.filter((entry): entry is [string, string] => entry[1] !== undefined);
}

/** Checks the `endpointDecorators` extra: class decorators, applied to every endpoint controller. */
export function resolveEndpointDecorators(value: unknown): ClassDecorator[] {
  if (value === undefined) {
    return [];
  }
  if (!Array.isArray(value) || value.some((decorator) => typeof decorator !== 'function')) {
    throw new McpConfigurationError(
      INVALID_OPTION(
        'endpointDecorators',
        'must be an array of decorators, such as [Public()] or [SetMetadata(key, value)]',
      ),
    );
  }
  return value as ClassDecorator[];
}
