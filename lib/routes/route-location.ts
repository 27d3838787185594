/**
 * Where a route tool's answer comes from, as a URI: the route's absolute URL on this server
 * when a client can fetch it (a GET route, called over HTTP: the URL is built from the MCP
 * request's own scheme and host, as the platform reads them, its trust-proxy setting
 * included), else a `route:` URI naming the route's path, which identifies the answer but is
 * not fetched.
 */
import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import type { RouteLocation } from './route-file';
import type { RouteVerb } from './route-shape';

/** What ends a host, or has no place in one: a path, a query, a fragment, user info, spaces, controls. */
function outOfPlace(host: string): boolean {
  for (let index = 0; index < host.length; index += 1) {
    const code = host.charCodeAt(index);
    if (code <= 0x20 || code === 0x7f || '/?#@\\'.includes(host[index])) {
      return true;
    }
  }
  return false;
}

/**
 * `http(s)://host[:port]` from a request's scheme and `Host`, or `undefined` when either is
 * missing or is not a plain scheme and host (user info, a path or a query in the host are
 * refused: the URL must name this server and nothing else).
 */
export function originOf(protocol: unknown, host: unknown): string | undefined {
  if (
    (protocol !== 'http' && protocol !== 'https') ||
    typeof host !== 'string' ||
    host === '' ||
    host.length > 255 ||
    outOfPlace(host)
  ) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(`${protocol}://${host}`);
  } catch {
    return undefined;
  }
  const plain =
    url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
  return plain && url.hostname !== '' ? url.origin : undefined;
}

/** The scheme and host of the MCP request (Express's or Fastify's request: both have `protocol` and `host`). */
function requestOrigin(native: McpNativeExchange | undefined): string | undefined {
  const request = native?.request as { protocol?: unknown; host?: unknown } | undefined;
  if (request === undefined || request === null) {
    return undefined;
  }
  return originOf(request.protocol, request.host);
}

/**
 * The location of one call's answer. `target` is the route's path with its query, as sent.
 * `uri` is the route's URL when the route is fetchable (`link`), else `route:<target>`.
 */
export function routeLocation(verb: RouteVerb, target: string, native: McpNativeExchange | undefined): RouteLocation {
  const origin = verb === 'GET' ? requestOrigin(native) : undefined;
  if (origin === undefined) {
    return { uri: `route:${target}` };
  }
  const link = new URL(`${origin}${target}`).href;
  return { uri: link, link };
}
