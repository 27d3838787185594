import type { IncomingMessage } from 'node:http';
import { closestPath, consolePathBeside, endpointBesideConsole, endpointsFor, requestPath } from './console-paths';

const req = (url: string, originalUrl?: string) => ({ url, originalUrl }) as unknown as IncomingMessage;

describe('requestPath', () => {
  it.each([
    ['/mcp/console', '/mcp/console'],
    ['/mcp/console/', '/mcp/console'],
    ['/mcp/console?tab=tools', '/mcp/console'],
    ['/mcp/console//?x=/y/', '/mcp/console'],
    ['/', '/'],
  ])('%s -> %s', (url, path) => {
    expect(requestPath(req(url))).toBe(path);
  });

  it("takes Express's originalUrl, which a mounted router does not shorten", () => {
    expect(requestPath(req('/console', '/api/mcp/console'))).toBe('/api/mcp/console');
  });
});

describe('closestPath', () => {
  it('picks the candidate sharing the most leading segments, the first on a tie', () => {
    expect(closestPath(['/api/v1/mcp', '/api/v2/mcp'], '/api/v2/mcp/console')).toBe('/api/v2/mcp');
    expect(closestPath(['/api/v1/mcp', '/api/v2/mcp'], '/api/v1/tools-console')).toBe('/api/v1/mcp');
    expect(closestPath(['/v1/mcp', '/v2/mcp'], '/elsewhere')).toBe('/v1/mcp');
    expect(closestPath([], '/x')).toBeUndefined();
  });
});

describe('endpointsFor', () => {
  it('names each endpoint the server serves at the version of the page', () => {
    const mounted = {
      streamable: ['/v1/mcp', '/v2/mcp'],
      simple: ['/v1/rpc', '/v2/rpc'],
      sse: [],
      sseMessages: [],
    };
    expect(endpointsFor(mounted, '/v2/mcp/console', '/fallback')).toEqual({
      streamable: '/v2/mcp',
      simple: '/v2/rpc',
      sse: undefined,
      sseMessages: undefined,
    });
  });

  it('falls back when the platform reported no path', () => {
    const none = { streamable: [], simple: [], sse: [], sseMessages: [] };
    expect(endpointsFor(none, '/mcp/console', '/mcp').streamable).toBe('/mcp');
  });
});

describe('consolePathBeside and endpointBesideConsole', () => {
  it.each([
    ['/mcp', 'mcp', 'mcp/console', '/mcp/console'],
    ['/api/v1/mcp', 'mcp', 'mcp/console', '/api/v1/mcp/console'],
    ['/api/v1/a/b', '/a/b/', 'tools', '/api/v1/tools'],
    ['/api', '/', 'console', '/api/console'],
  ])('beside %s (endpoint %s), console %s is at %s', (mounted, endpoint, console, full) => {
    expect(consolePathBeside(mounted, endpoint, console)).toBe(full);
    expect(endpointBesideConsole(full, console, endpoint)).toBe(mounted);
  });

  it('names the root for an endpoint at the root without a prefix', () => {
    expect(endpointBesideConsole('/console', 'console', '/')).toBe('/');
  });

  it('derives nothing from a mounted path that does not end with the endpoint path', () => {
    expect(consolePathBeside('/api/other', 'mcp', 'mcp/console')).toBeUndefined();
  });
});
