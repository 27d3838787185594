import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { Type } from '@nestjs/common';
import {
  assertValidIdentity,
  ownersOf,
  resolveServerIdentity,
  serverTakes,
  placementFault,
  type McpServerIdentity,
} from './server-identity';

class AdminModule {}
class OtherModule {}
class ReportsModule {}

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

describe('ownersOf / serverTakes', () => {
  // A public server without include, an admin one that includes AdminModule, reports that includes
  // AdminModule and ReportsModule.
  const pub = server('public');
  const admin = server('admin', [AdminModule]);
  const reports = server('reports', [AdminModule, ReportsModule]);
  const all = [pub, admin, reports];
  const included = [admin, reports];
  const open = [pub, server('other')];

  const cases: Array<[string, McpServerIdentity[], Type | undefined, string[] | undefined, string[]]> = [
    ['in no include: the servers without include', all, OtherModule, undefined, ['public']],
    ['in an include: only the servers that include it', all, AdminModule, undefined, ['admin', 'reports']],
    ['in one include: that server alone', all, ReportsModule, undefined, ['reports']],
    ['no module known: the servers without include', all, undefined, undefined, ['public']],
    ['named: exactly those named, whatever their include', all, AdminModule, ['public'], ['public']],
    ['named: a server whose include leaves the module out', all, OtherModule, ['admin'], ['admin']],
    ['named for two', all, AdminModule, ['public', 'admin'], ['public', 'admin']],
    ['named with an unknown name: the known ones', all, AdminModule, ['admin', 'nope'], ['admin']],
    ['named unknown only: none', all, AdminModule, ['nope'], []],
    ['named, an empty list: none', all, AdminModule, [], []],
    ['in no include, every server has one: none', included, OtherModule, undefined, []],
    ['no include anywhere: every server', open, OtherModule, undefined, ['public', 'other']],
    ['no server at all: none', [], OtherModule, undefined, []],
  ];

  it.each(cases)('%s', (_title, identities, module, named, expected) => {
    expect(ownersOf(identities, module, named).map((owner) => owner.name)).toEqual(expected);
    for (const identity of identities) {
      expect(serverTakes(identity, identities, module, named)).toBe(expected.includes(identity.name));
    }
  });
});

describe('placementFault', () => {
  const included = [server('admin', [AdminModule]), server('reports', [ReportsModule])];

  it.each<[string, Type | undefined, string[] | undefined, string]>([
    [
      'a module no include names, no server without include',
      OtherModule,
      undefined,
      "X.y is in OtherModule, which no server's include names, and every server has an include",
    ],
    ['an unknown module', undefined, undefined, 'X.y is in an unknown module, which no server'],
    [
      'unknown names',
      AdminModule,
      ['nope', 'gone'],
      'X.y names "nope", "gone" in servers, and the servers are "admin", "reports"',
    ],
    ['an unknown name beside a known one', AdminModule, ['admin', 'nope'], 'X.y names "nope" in servers'],
    ['an empty servers list', AdminModule, [], 'X.y names no server in servers (an empty list)'],
  ])('says why for %s', (_title, module, named, text) => {
    expect(placementFault('X.y', included, module, named)).toContain(text);
  });

  it.each<[string, Type | undefined, string[] | undefined]>([
    ['an included module', AdminModule, undefined],
    ['known names', OtherModule, ['reports', 'admin']],
  ])('finds nothing wrong with %s', (_title, module, named) => {
    expect(placementFault('X.y', included, module, named)).toBeUndefined();
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
