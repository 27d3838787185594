import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { assertValidIdentity, resolveServerIdentity, serverClaims, type McpServerIdentity } from './server-identity';

class PublicModule {}
class AdminModule {}
class OtherModule {}

function server(name: string, include?: Array<new () => unknown>): McpServerIdentity {
  return resolveServerIdentity({ name, include }, { streamable: name }, true, undefined);
}

describe('resolveServerIdentity', () => {
  it('names a server without a name "default" and counts the calls in order', () => {
    const first = resolveServerIdentity({}, { streamable: 'mcp' }, true, undefined);
    const second = resolveServerIdentity({ name: 'admin' }, { streamable: 'admin' }, false, 'app.ts:1:1');
    expect(first.name).toBe('default');
    expect(second).toMatchObject({ name: 'admin', global: false, site: 'app.ts:1:1' });
    expect(second.order).toBeGreaterThan(first.order);
  });
});

describe('serverClaims', () => {
  const cases: Array<[string, McpServerIdentity, (new () => unknown) | undefined, string[] | undefined, boolean]> = [
    ['no include, no servers', server('a'), OtherModule, undefined, true],
    ['no include, named', server('a'), OtherModule, ['a'], true],
    ['no include, another named', server('a'), OtherModule, ['b'], false],
    ['included module', server('a', [PublicModule]), PublicModule, undefined, true],
    ['module left out', server('a', [PublicModule]), AdminModule, undefined, false],
    ['included and named', server('a', [PublicModule, AdminModule]), AdminModule, ['a', 'b'], true],
    ['included but another named', server('a', [AdminModule]), AdminModule, ['b'], false],
    ['no module known', server('a', [AdminModule]), undefined, undefined, false],
  ];
  it.each(cases)('%s', (_title, identity, module, servers, expected) => {
    expect(serverClaims(identity, module, servers)).toBe(expected);
  });
});

describe('assertValidIdentity', () => {
  it.each([
    ['a blank name', { name: '  ' }, '"name"'],
    ['a name that is not a string', { name: 42 as unknown as string }, '"name"'],
    ['an empty include', { name: 'a', include: [] }, 'of server "a" must be a non-empty list'],
    ['an include of non-classes', { name: 'a', include: ['AdminModule' as unknown as new () => unknown] }, '"include"'],
  ])('refuses %s', (_title, extras, text) => {
    const identity = resolveServerIdentity(extras, { streamable: 'mcp' }, true, undefined);
    expect(() => assertValidIdentity(identity)).toThrow(McpConfigurationError);
    expect(() => assertValidIdentity(identity)).toThrow(text);
  });

  it('takes a name and a list of modules', () => {
    expect(() => assertValidIdentity(server('admin', [AdminModule]))).not.toThrow();
  });
});
