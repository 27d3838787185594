import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import { originOf, routeLocation } from './route-location';

function over(request: Record<string, unknown>): McpNativeExchange {
  return { request, response: {} };
}

describe('originOf', () => {
  it.each([
    ['http', '127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['https', 'API.example.com', 'https://api.example.com'],
    ['https', 'api.example.com:443', 'https://api.example.com'],
    ['http', '[::1]:8080', 'http://[::1]:8080'],
  ])('builds %s://%s', (protocol, host, origin) => {
    expect(originOf(protocol, host)).toBe(origin);
  });

  it.each([
    ['ftp', 'example.com'],
    ['http', ''],
    ['http', undefined],
    ['http', 'user@example.com'],
    ['http', 'example.com/path'],
    ['http', 'example.com?q=1'],
    ['http', 'example.com#x'],
    ['http', 'exa mple.com'],
    ['http', `${'a'.repeat(300)}.com`],
  ])('refuses %s with host %s', (protocol, host) => {
    expect(originOf(protocol, host)).toBeUndefined();
  });
});

describe('routeLocation', () => {
  const request = { protocol: 'http', host: '127.0.0.1:3000' };

  it("gives a GET route called over HTTP its URL on the MCP request's host, as uri and link", () => {
    expect(routeLocation('GET', '/files/a%20b?x=1', over(request))).toEqual({
      uri: 'http://127.0.0.1:3000/files/a%20b?x=1',
      link: 'http://127.0.0.1:3000/files/a%20b?x=1',
    });
  });

  it('keeps a path that starts with two slashes on this host', () => {
    expect(routeLocation('GET', '//evil.example/x', over(request)).link).toBe('http://127.0.0.1:3000//evil.example/x');
  });

  it('names any other route, or a call without an HTTP request, with route: and no link', () => {
    expect(routeLocation('POST', '/files/export', over(request))).toEqual({ uri: 'route:/files/export' });
    expect(routeLocation('GET', '/files/a', undefined)).toEqual({ uri: 'route:/files/a' });
    expect(routeLocation('GET', '/files/a', over({ protocol: 'http' }))).toEqual({ uri: 'route:/files/a' });
  });
});
