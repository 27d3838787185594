import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpHealthIndicator } from '../health/mcp.health';
import { McpStdioServer } from '../transports/stdio/mcp-stdio.server';
import { MCP_NOTIFICATION_BUS, MCP_REPLAY_STORE, MCP_SESSION_STORE, MCP_TASK_STORE } from '../shared/mcp.constants';
import { getMcpStoreToken, type McpStoreKind } from '../stores/store-tokens';
import { getMcpToken, type McpServiceClass, SERVER_SERVICES } from './server-tokens';

describe('getMcpToken', () => {
  it('is the class itself for the default server', () => {
    expect(getMcpToken(McpRegistry)).toBe(McpRegistry);
    expect(getMcpToken(McpHealthIndicator)).toBe(McpHealthIndicator);
  });

  it("is the server's own token with a name, for each of the seven services", () => {
    expect(SERVER_SERVICES).toHaveLength(7);
    for (const { type } of SERVER_SERVICES) {
      expect(getMcpToken(type as McpServiceClass, 'admin')).toBe(`nest-mcp:server:admin:${type.name}`);
    }
    expect(getMcpToken(McpStdioServer, 'cli')).toBe('nest-mcp:server:cli:McpStdioServer');
  });

  it('refuses a class that is not a public service, naming it', () => {
    class NotesService {}
    const call = () => getMcpToken(NotesService as unknown as McpServiceClass, 'admin');
    expect(call).toThrow(McpConfigurationError);
    expect(call).toThrow(/NotesService is not a public service of an MCP server/);
  });
});

describe('getMcpStoreToken', () => {
  it('is the shared token of each kind without a name', () => {
    expect(getMcpStoreToken('sessions')).toBe(MCP_SESSION_STORE);
    expect(getMcpStoreToken('replay')).toBe(MCP_REPLAY_STORE);
    expect(getMcpStoreToken('tasks')).toBe(MCP_TASK_STORE);
    expect(getMcpStoreToken('bus')).toBe(MCP_NOTIFICATION_BUS);
  });

  it("is the server's own token with a name, as before the helpers were merged", () => {
    expect(getMcpStoreToken('sessions', 'admin')).toBe('nest-mcp:server:admin:SessionStore');
    expect(getMcpStoreToken('replay', 'admin')).toBe('nest-mcp:server:admin:ReplayStore');
    expect(getMcpStoreToken('tasks', 'admin')).toBe('nest-mcp:server:admin:TaskStore');
    expect(getMcpStoreToken('bus', 'admin')).toBe('nest-mcp:server:admin:NotificationBus');
  });

  it('refuses an unknown kind', () => {
    expect(() => getMcpStoreToken('toString' as McpStoreKind)).toThrow(McpConfigurationError);
    expect(() => getMcpStoreToken('cache' as McpStoreKind)).toThrow(/"cache" is not a store of an MCP server/);
  });
});
