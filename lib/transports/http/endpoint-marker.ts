/**
 * The mark the module's endpoint controllers and their route handlers carry: the platform hooks
 * find the module's routes by it, the guard reads which verbs an endpoint serves from it, and
 * `isMcpEndpoint()` tells application guards about the endpoints.
 */
import { MCP_ENDPOINT_METADATA } from '../../shared/mcp.constants';

/** The HTTP endpoints of a server. */
export type McpEndpointKind = 'streamable' | 'simple' | 'sse-events' | 'sse-messages';

/**
 * What the generated controllers and their route handlers carry under `MCP_ENDPOINT_METADATA`:
 * the platform hooks find the module's routes by it (own body reading, the answers to verbs the
 * endpoint does not serve), and `isMcpEndpoint()` tells guards about them.
 */
export interface McpEndpointMarker {
  readonly kind: McpEndpointKind;
  /** The name of the server the endpoint belongs to: each server's platform hooks take only their own. */
  readonly server: string;
  /** The methods the endpoint serves, as the `Allow` header lists them. */
  readonly allow: string;
}

/** An HTTP verb an endpoint may serve. */
export type McpEndpointVerb = 'POST' | 'GET' | 'DELETE' | 'OPTIONS';

/** The verbs each endpoint serves; other verbs are answered 405 by the platform hooks, without a route. */
export const SERVED_VERBS: Readonly<Record<McpEndpointKind, readonly McpEndpointVerb[]>> = {
  streamable: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  simple: ['POST', 'OPTIONS'],
  'sse-events': ['GET', 'OPTIONS'],
  'sse-messages': ['POST', 'OPTIONS'],
};

/** The marker of an endpoint of a server. */
export function endpointMarker(kind: McpEndpointKind, server: string): McpEndpointMarker {
  return Object.freeze({ kind, server, allow: SERVED_VERBS[kind].join(', ') });
}

/** The marker a class or a route handler carries, if it is one of the module's endpoints. */
export function markerOf(target: unknown): McpEndpointMarker | undefined {
  return typeof target === 'function'
    ? (Reflect.getMetadata(MCP_ENDPOINT_METADATA, target) as McpEndpointMarker | undefined)
    : undefined;
}

/**
 * Whether a request of this verb can reach an endpoint's handler without the endpoint serving
 * it. An endpoint's routes are only the verbs it serves, but the platforms route `HEAD` to a
 * `GET` route: only that one needs {@link servesVerb}, and no other request pays for the lookup.
 */
export function mayBeUnserved(method: string | undefined): boolean {
  return method === 'HEAD';
}

/** Whether an endpoint serves a verb (see {@link mayBeUnserved}). */
export function servesVerb(marker: McpEndpointMarker, method: string | undefined): method is McpEndpointVerb {
  return (SERVED_VERBS[marker.kind] as readonly string[]).includes(method ?? '');
}
