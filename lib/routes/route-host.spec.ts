import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { routeHost } from './route-host';

describe('route tool host', () => {
  it("names the controller's fixed host, the first of several, or none", () => {
    expect(routeHost(undefined, 'C.m')).toBeUndefined();
    expect(routeHost('api.example.com', 'C.m')).toBe('api.example.com');
    expect(routeHost(['a.example.com', 'b.example.com'], 'C.m')).toBe('a.example.com');
  });

  it('refuses a host with parameters or a RegExp, naming the route', () => {
    expect(() => routeHost(':account.example.com', 'AccountsController.list')).toThrow(McpConfigurationError);
    expect(() => routeHost(/.*\.example\.com/, 'AccountsController.list')).toThrow(/AccountsController\.list/);
  });
});
