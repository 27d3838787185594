/**
 * The `Host` a route tool's request names, for a controller served on one host only
 * (`@Controller({ host })`). Pure.
 */
import { McpConfigurationError } from '../errors/mcp-configuration.error';

/**
 * The host to send: the controller's (the first of several); `undefined` for a controller on
 * any host.
 * @throws McpConfigurationError naming the route for a host with parameters or a RegExp: which
 * host the call should name cannot be known
 */
export function routeHost(host: unknown, where: string): string | undefined {
  const first: unknown = Array.isArray(host) ? host[0] : host;
  if (first === undefined || first === null) {
    return undefined;
  }
  if (typeof first === 'string' && !first.includes(':')) {
    return first;
  }
  throw new McpConfigurationError(
    `${where} is served only for the host ${first instanceof RegExp ? first.source : JSON.stringify(first)}, ` +
      'which has parameters or is a RegExp: a route tool cannot choose ' +
      'the host. Give its controller a fixed host, or write an @McpTool that calls the service.',
  );
}
