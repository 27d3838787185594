/**
 * The bound on resource URIs a client sends: checked before any lookup or template matching,
 * so that neither the catalog nor a store (subscriptions are kept per session) works on more
 * than `maxUriLength` characters of one.
 */
import { McpErrorCode } from './json-rpc';
import { McpError } from './mcp-error';

/** @throws McpError -32602 naming the option when `uri` is longer than `maxUriLength`. */
export function checkUriLength(uri: string, maxUriLength: number, what = 'uri'): void {
  if (uri.length > maxUriLength) {
    throw new McpError(
      McpErrorCode.InvalidParams,
      `Invalid params: ${what} is longer than ${maxUriLength} characters (McpModule option maxUriLength)`,
    );
  }
}
