/**
 * The full paths a console page names: its own (from the request, which carries the global
 * prefix and the version it was reached by) and its server's endpoints (as the platform mounted
 * them; with several versions, the ones of the version the page was reached by).
 */
import type { IncomingMessage } from 'node:http';
import { normalizePath } from '../identity/http-paths';
import { pathOf } from '../transports/http/platform-hooks';
import type { ConsoleEndpoints } from './console-page';

/** The path of a request, without its query and trailing slashes (Express's `originalUrl` under a mounted router). */
export function requestPath(req: IncomingMessage): string {
  const path = pathOf((req as { originalUrl?: string }).originalUrl ?? req.url).replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

function segments(path: string): string[] {
  return normalizePath(path).split('/').slice(1);
}

/**
 * The candidate that shares the most leading segments with `path` (the first on a tie):
 * `/api/v2/mcp` for `/api/v2/mcp/console` among `/api/v1/mcp` and `/api/v2/mcp`.
 */
export function closestPath(candidates: readonly string[], path: string): string | undefined {
  const target = segments(path);
  let best: string | undefined;
  let bestShared = -1;
  for (const candidate of candidates) {
    const parts = segments(candidate);
    let shared = 0;
    while (shared < parts.length && shared < target.length && parts[shared] === target[shared]) {
      shared += 1;
    }
    if (shared > bestShared) {
      best = candidate;
      bestShared = shared;
    }
  }
  return best;
}

/** The mounted full paths of each endpoint of a server (`HttpPlatform.pathsOf`). */
export interface MountedEndpoints {
  readonly streamable: readonly string[];
  readonly simple: readonly string[];
  readonly sse: readonly string[];
  readonly sseMessages: readonly string[];
}

/**
 * The endpoints a page reached at `pagePath` names: for each endpoint the server serves, its
 * mounted path closest to the page's. `fallback` is the Streamable HTTP path when the platform
 * reported none (a platform whose routes the module could not read).
 */
export function endpointsFor(mounted: MountedEndpoints, pagePath: string, fallback: string): ConsoleEndpoints {
  const pick = (paths: readonly string[]): string | undefined => closestPath(paths, pagePath);
  return {
    streamable: pick(mounted.streamable) ?? fallback,
    simple: pick(mounted.simple),
    sse: pick(mounted.sse),
    sseMessages: pick(mounted.sseMessages),
  };
}

/**
 * The full path of a console whose server's Streamable HTTP endpoint is mounted at
 * `mountedEndpoint`: the same prefix and version, then the console's own path. `undefined` when
 * the mounted path does not end with the endpoint's path (nothing to derive from).
 */
export function consolePathBeside(
  mountedEndpoint: string,
  endpointPath: string,
  consolePath: string,
): string | undefined {
  const mounted = normalizePath(mountedEndpoint);
  const own = normalizePath(endpointPath);
  if (own !== '/' && !mounted.endsWith(own)) {
    return undefined;
  }
  const prefix = own === '/' ? mounted : mounted.slice(0, mounted.length - own.length);
  return `${prefix.replace(/\/+$/, '')}${normalizePath(consolePath)}`;
}

/**
 * The inverse of `consolePathBeside`: the Streamable HTTP endpoint beside a console page reached
 * at `pagePath` (its prefix and version, then the endpoint's own path).
 */
export function endpointBesideConsole(pagePath: string, consolePath: string, endpointPath: string): string {
  const page = normalizePath(pagePath);
  const own = normalizePath(consolePath);
  const prefix = (
    page.toLowerCase().endsWith(own.toLowerCase()) ? page.slice(0, page.length - own.length) : ''
  ).replace(/\/+$/, '');
  const endpoint = normalizePath(endpointPath);
  return endpoint === '/' ? prefix || '/' : `${prefix}${endpoint}`;
}
