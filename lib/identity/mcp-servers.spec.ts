import type { ModulesContainer } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import type { McpHttpPaths } from './http-paths';
import { assertDistinctServers, defaultServerOf, serverIdentities } from './mcp-servers';
import { resolveServerIdentity, type McpServerIdentity } from './server-identity';

function server(name: string, paths: McpHttpPaths, global = true, consolePath?: string): McpServerIdentity {
  return resolveServerIdentity({ name }, paths, global, `${name}.module.ts:1:1`, consolePath);
}

/** A container holding the identities as Nest holds value providers, in the given module order. */
function container(...identities: McpServerIdentity[]): ModulesContainer {
  const modules = [
    { providers: new Map() },
    ...identities.map((identity) => ({
      providers: new Map([[MCP_SERVER_IDENTITY, { instance: identity }]]),
    })),
  ];
  return new Map(modules.map((module, index) => [String(index), module])) as unknown as ModulesContainer;
}

describe('serverIdentities and defaultServerOf', () => {
  it('orders the servers by their forRoot calls, not by the modules container', () => {
    const first = server('first', { streamable: 'a' });
    const second = server('second', { streamable: 'b' });
    expect(serverIdentities(container(second, first))).toEqual([first, second]);
  });

  it('the default is the first global server, else the first', () => {
    const local = server('local', { streamable: 'a' }, false);
    const global = server('global', { streamable: 'b' });
    expect(defaultServerOf([local, global])).toBe(global);
    expect(defaultServerOf([local])).toBe(local);
    expect(defaultServerOf([])).toBeUndefined();
  });
});

describe('assertDistinctServers', () => {
  it('lets servers of their own names and paths through', () => {
    expect(() =>
      assertDistinctServers([
        server('public', { streamable: 'public', simple: 'rpc' }),
        server('admin', { streamable: 'admin', sse: { events: 'sse', messages: 'messages' } }),
      ]),
    ).not.toThrow();
  });

  it('lets servers with a console each at its own path through', () => {
    expect(() =>
      assertDistinctServers([
        server('public', { streamable: 'public' }, true, 'public/console'),
        server('admin', { streamable: 'admin' }, true, 'admin/console'),
      ]),
    ).not.toThrow();
  });

  it('names console.path in the advice', () => {
    expect(() =>
      assertDistinctServers([server('a', { streamable: 'x' }, true, 'c'), server('b', { streamable: 'y' }, true, 'c')]),
    ).toThrow('console.path');
  });

  it.each([
    ['one name', [server('a', { streamable: 'x' }), server('a', { streamable: 'y' })], 'Two MCP servers are named "a"'],
    ['one path', [server('a', { streamable: 'x' }), server('b', { streamable: '/x/' })], 'use the path "/x/"'],
    [
      'a simple path on another Streamable HTTP path',
      [server('a', { streamable: 'x', simple: 'rpc' }), server('b', { streamable: 'rpc' })],
      'use the path "rpc"',
    ],
    [
      'an SSE path on another server',
      [
        server('a', { streamable: 'x', sse: { events: 'sse', messages: 'm' } }),
        server('b', { streamable: 'y', simple: 'sse' }),
      ],
      'use the path "sse"',
    ],
    [
      'one console path',
      [server('a', { streamable: 'x' }, true, 'console'), server('b', { streamable: 'y' }, true, '/console/')],
      'use the path "/console/"',
    ],
    [
      'a console path on another Streamable HTTP path',
      [server('a', { streamable: 'x' }, true, 'y'), server('b', { streamable: 'y' })],
      'use the path "y"',
    ],
  ])('refuses two servers on %s, naming both', (_title, identities, text) => {
    expect(() => assertDistinctServers(identities)).toThrow(McpConfigurationError);
    expect(() => assertDistinctServers(identities)).toThrow(text);
    expect(() => assertDistinctServers(identities)).toThrow(
      /a\.module\.ts:1:1.*b\.module\.ts:1:1|a\.module\.ts:1:1.*a\.module\.ts:1:1/,
    );
  });
});
