/**
 * nest-mcp/stdio: the stdio transport, a secondary entry point. An application that serves MCP
 * over HTTP only never loads its names; one that runs as a local tool imports them from here.
 * The options the module takes for it (`McpStdioOptions`) stay in the root entry.
 */
export { McpStdioServer } from './transports/stdio/mcp-stdio.server';
export type { McpStdioListenOptions } from './transports/stdio/mcp-stdio.server';
export { McpStderrLogger } from './transports/stdio/stderr.logger';
export { runMcpStdio } from './transports/stdio/mcp-stdio.bootstrap';
export type { McpStdioRunOptions } from './transports/stdio/mcp-stdio.bootstrap';
// The principal a stdio connection runs as (`runMcpStdio({ principal })`), also in the root entry.
export type { McpPrincipal } from './protocol/bounds/principal';
