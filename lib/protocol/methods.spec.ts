import type { McpTransportKind } from './calls/transport-contract';
import { BUILT_IN_METHODS as METHODS, MethodTable, type MethodEntry, type MethodGate } from './methods';
import type { JSONRPCRequest } from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import { META_KEYS } from './messages/request-meta';
import { RequestResolver } from './request-resolver';
import { RoundTrips } from './round-trips';
import type { McpEra } from './messages/revisions';

const TRANSPORTS: McpTransportKind[] = ['streamable-http', 'simple-http', 'sse', 'stdio'];
const NON_SSE: McpTransportKind[] = ['streamable-http', 'simple-http', 'stdio'];

const LEGACY_ONLY = ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'];
const BOTH_ERAS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
];
const UNKNOWN = [
  'foo/bar',
  '',
  'tools/delete',
  'Tools/List',
  'notifications/initialized',
  'toString',
  'constructor',
  '__proto__',
  'hasOwnProperty',
];

const table = new MethodTable();
const servesMethod = (
  era: McpEra,
  method: string,
  transport: McpTransportKind,
  revision?: string,
  gates?: ReadonlySet<MethodGate>,
) => (gates === undefined ? table : new MethodTable(new Map(), gates)).serves(era, method, transport, revision);
const methodEntry = (method: string) => table.entry(method);
const methodsWith = (flag: 'longLived' | 'selfTimed' | 'cacheable' | 'multiRound'): ReadonlySet<string> =>
  new Set([...METHODS].filter(([, entry]) => entry[flag] !== undefined).map(([method]) => method));
const LONG_LIVED_METHODS = methodsWith('longLived');
const SELF_TIMED_METHODS = methodsWith('selfTimed');
const CACHEABLE_METHODS = methodsWith('cacheable');
const MULTI_ROUND_METHODS = methodsWith('multiRound');

function cross<A, B>(as: readonly A[], bs: readonly B[]): Array<[A, B]> {
  return as.flatMap((a) => bs.map((b): [A, B] => [a, b]));
}

describe('servesMethod', () => {
  describe('legacy-only methods', () => {
    it.each(cross(LEGACY_ONLY, TRANSPORTS))('%s is served to legacy requests on %s', (method, transport) => {
      expect(servesMethod('legacy', method, transport)).toBe(true);
    });

    it.each(cross(LEGACY_ONLY, TRANSPORTS))('%s is not served to modern requests on %s', (method, transport) => {
      expect(servesMethod('modern', method, transport)).toBe(false);
    });
  });

  describe('methods of both eras', () => {
    it.each(cross(BOTH_ERAS, TRANSPORTS))('%s is served to both eras on %s', (method, transport) => {
      expect(servesMethod('legacy', method, transport)).toBe(true);
      expect(servesMethod('modern', method, transport)).toBe(true);
    });
  });

  describe('server/discover', () => {
    it.each(NON_SSE)('is served to both eras on %s', (transport) => {
      expect(servesMethod('legacy', 'server/discover', transport)).toBe(true);
      expect(servesMethod('modern', 'server/discover', transport)).toBe(true);
    });

    it('is refused on the 2024-11-05 SSE pair, whatever the era', () => {
      expect(servesMethod('legacy', 'server/discover', 'sse')).toBe(false);
      expect(servesMethod('modern', 'server/discover', 'sse')).toBe(false);
    });
  });

  describe('subscriptions/listen', () => {
    it.each<McpTransportKind>(['streamable-http', 'stdio'])('is served to modern requests on %s', (transport) => {
      expect(servesMethod('modern', 'subscriptions/listen', transport)).toBe(true);
    });

    it.each<McpTransportKind>(['simple-http', 'sse'])(
      'is not served on %s, which cannot hold its stream',
      (transport) => {
        expect(servesMethod('modern', 'subscriptions/listen', transport)).toBe(false);
      },
    );

    it.each(TRANSPORTS)('is not served to legacy requests on %s', (transport) => {
      expect(servesMethod('legacy', 'subscriptions/listen', transport)).toBe(false);
    });
  });

  describe('unknown methods', () => {
    it.each(cross(UNKNOWN, ['legacy', 'modern'] as const))('%p is not served to %s requests', (method, era) => {
      for (const transport of TRANSPORTS) {
        expect(servesMethod(era, method, transport)).toBe(false);
      }
    });
  });
});

describe('servesMethod: tasks', () => {
  const CORE = ['tasks/get', 'tasks/cancel', 'tasks/result', 'tasks/list'];

  it.each(cross(CORE, TRANSPORTS))('%s is served to 2025-11-25 legacy requests on %s', (method, transport) => {
    expect(servesMethod('legacy', method, transport, '2025-11-25')).toBe(true);
  });

  it.each(cross(CORE, ['2024-11-05', '2025-03-26', '2025-06-18', undefined]))(
    '%s is not served to legacy requests of revision %s',
    (method, revision) => {
      expect(servesMethod('legacy', method, 'streamable-http', revision)).toBe(false);
    },
  );

  it.each(TRANSPORTS)(
    'the extension serves tasks/get, tasks/update and tasks/cancel to modern requests on %s',
    (transport) => {
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        expect(servesMethod('modern', method, transport)).toBe(true);
      }
    },
  );

  it('the extension has no tasks/result nor tasks/list, and the core methods no tasks/update', () => {
    expect(servesMethod('modern', 'tasks/result', 'streamable-http')).toBe(false);
    expect(servesMethod('modern', 'tasks/list', 'streamable-http')).toBe(false);
    expect(servesMethod('legacy', 'tasks/update', 'streamable-http', '2025-11-25')).toBe(false);
  });

  it('tasks/result waits by its own limit, not the call deadline', () => {
    expect([...SELF_TIMED_METHODS]).toEqual(['tasks/result']);
  });
});

describe('CACHEABLE_METHODS', () => {
  it.each([
    'server/discover',
    'tools/list',
    'prompts/list',
    'resources/list',
    'resources/templates/list',
    'resources/read',
  ])('%s is cacheable', (method) => {
    expect(CACHEABLE_METHODS.has(method)).toBe(true);
  });

  it.each(['tools/call', 'prompts/get', 'completion/complete', 'initialize', 'ping'])(
    '%s is not cacheable',
    (method) => {
      expect(CACHEABLE_METHODS.has(method)).toBe(false);
    },
  );

  it('holds exactly the nine cacheable methods', () => {
    expect(CACHEABLE_METHODS.size).toBe(9);
  });

  it("takes discovery's own cache hints for server/discover only, the catalog's for the others", () => {
    const kinds = Object.fromEntries([...CACHEABLE_METHODS].map((method) => [method, METHODS.get(method)?.cacheable]));
    expect(kinds).toEqual({
      'server/discover': 'discover',
      'tools/list': 'catalog',
      'prompts/list': 'catalog',
      'resources/list': 'catalog',
      'resources/templates/list': 'catalog',
      'resources/read': 'catalog',
      'skills/list': 'catalog',
      'skills/get': 'catalog',
      'resources/directory/read': 'catalog',
    });
  });
});

describe('LONG_LIVED_METHODS', () => {
  it('holds subscriptions/listen only', () => {
    expect([...LONG_LIVED_METHODS]).toEqual(['subscriptions/listen']);
  });
});

describe('gated methods (the Skills extension)', () => {
  it.each<[string, 'skills' | 'directoryRead']>([
    ['skills/list', 'skills'],
    ['skills/get', 'skills'],
    ['resources/directory/read', 'directoryRead'],
  ])('%s is served in both eras only to a server that has %s', (method, gate) => {
    for (const era of ['legacy', 'modern'] as const) {
      expect(servesMethod(era, method, 'streamable-http')).toBe(false);
      expect(servesMethod(era, method, 'streamable-http', undefined, new Set())).toBe(false);
      expect(servesMethod(era, method, 'streamable-http', undefined, new Set([gate]))).toBe(true);
    }
  });

  it('leaves a gated method out of a table whose gate is closed: an unknown method there', () => {
    expect(new MethodTable().isKnown('skills/list')).toBe(false);
    expect(new MethodTable(new Map(), new Set(['skills'])).isKnown('skills/list')).toBe(true);
  });

  it('serves skills/list without directoryRead, and resources/directory/read only with it', () => {
    expect(servesMethod('modern', 'skills/list', 'sse', undefined, new Set(['skills']))).toBe(true);
    expect(servesMethod('modern', 'resources/directory/read', 'stdio', undefined, new Set(['skills']))).toBe(false);
  });
});

describe('METHODS: the one table', () => {
  type Row = [method: string, era: string, flags: string];
  const flagsOf = (entry: MethodEntry): string =>
    [
      entry.gate && `gated by ${entry.gate}`,
      entry.legacyFeature && `legacy needs ${entry.legacyFeature}`,
      entry.notOn && `not on ${entry.notOn.join(',')}`,
      entry.streaming && 'streaming',
      entry.longLived && 'long-lived',
      entry.selfTimed && 'self-timed',
      entry.cacheable && 'cacheable',
      entry.multiRound && 'multi-round',
      entry.nameParam && `Mcp-Name ${entry.nameParam}`,
    ]
      .filter(Boolean)
      .join(' ');
  const TABLE: Row[] = [
    ['initialize', 'legacy', ''],
    ['ping', 'legacy', ''],
    ['logging/setLevel', 'legacy', ''],
    ['resources/subscribe', 'legacy', ''],
    ['resources/unsubscribe', 'legacy', ''],
    ['server/discover', 'both', 'not on sse cacheable'],
    ['tools/list', 'both', 'cacheable'],
    ['tools/call', 'both', 'multi-round Mcp-Name name'],
    ['resources/list', 'both', 'cacheable'],
    ['resources/read', 'both', 'cacheable multi-round Mcp-Name uri'],
    ['resources/templates/list', 'both', 'cacheable'],
    ['prompts/list', 'both', 'cacheable'],
    ['prompts/get', 'both', 'multi-round Mcp-Name name'],
    ['completion/complete', 'both', ''],
    ['subscriptions/listen', 'modern', 'streaming long-lived'],
    ['tasks/get', 'both', 'legacy needs coreTasks Mcp-Name taskId'],
    ['tasks/cancel', 'both', 'legacy needs coreTasks Mcp-Name taskId'],
    ['tasks/result', 'legacy', 'legacy needs coreTasks self-timed'],
    ['tasks/list', 'legacy', 'legacy needs coreTasks'],
    ['tasks/update', 'modern', 'Mcp-Name taskId'],
    ['skills/list', 'both', 'gated by skills cacheable'],
    ['skills/get', 'both', 'gated by skills cacheable'],
    ['resources/directory/read', 'both', 'gated by directoryRead cacheable'],
  ];
  const GATED = new Set(['skills/list', 'skills/get', 'resources/directory/read']);

  it('holds every method with its eras and flags, and nothing else', () => {
    expect([...METHODS].map(([method, entry]): Row => [method, entry.era, flagsOf(entry)])).toEqual(TABLE);
  });

  it.each(TABLE)('%s has its handler', (method) => {
    expect(typeof METHODS.get(method)?.handler).toBe('function');
  });

  it('the multi-round methods are those that may answer input_required', () => {
    expect([...MULTI_ROUND_METHODS]).toEqual(['tools/call', 'resources/read', 'prompts/get']);
  });

  it.each(UNKNOWN)('%j is not in the table', (method) => {
    expect(methodEntry(method)).toBeUndefined();
  });

  describe('a method absent from an era is refused with -32601 by the resolver, from the table alone', () => {
    const logger = { error: jest.fn(), warn: jest.fn(), debug: jest.fn() };
    const resolver = new RequestResolver(
      ['2026-07-28', '2025-11-25'],
      'info',
      new RoundTrips({ secret: 'test', ttlMs: 60_000 }, logger, table),
      table,
    );
    const channel = { notify: jest.fn() };
    const message = (method: string, era: McpEra): JSONRPCRequest => ({
      jsonrpc: '2.0',
      id: 1,
      method,
      params:
        era === 'modern'
          ? { _meta: { [META_KEYS.protocolVersion]: '2026-07-28', [META_KEYS.clientCapabilities]: {} } }
          : {},
    });
    const absent = TABLE.flatMap(([method, era]): Array<[string, McpEra]> =>
      era === 'both' ? [] : [[method, era === 'legacy' ? 'modern' : 'legacy']],
    );

    it.each([...absent, ...UNKNOWN.map((method): [string, McpEra] => [method, 'legacy'])])(
      '%s in the %s era',
      (method, era) => {
        const resolved = resolver.resolve(
          { era, transport: 'stdio', revision: '2025-11-25', channel },
          message(method, era),
        );
        expect(resolved).toBeInstanceOf(McpError);
        expect(resolved).toMatchObject({ code: -32601, message: `Method not found: ${method}` });
      },
    );

    it.each(TABLE.filter(([method, era]) => era !== 'modern' && !GATED.has(method)).map(([method]) => method))(
      '%s in the legacy era passes the ladder',
      (method) => {
        const resolved = resolver.resolve(
          { era: 'legacy', transport: 'stdio', revision: '2025-11-25', channel },
          message(method, 'legacy'),
        );
        expect(resolved).not.toBeInstanceOf(McpError);
      },
    );
  });
});
