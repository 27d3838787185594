/**
 * The token of a service of the named server: every server offers its public services and
 * stores under these, the default one included. A leaf, so that the services themselves can
 * reach another server's.
 */
export function namedServerToken(server: string, service: string): string {
  return `nest-mcp:server:${server}:${service}`;
}
