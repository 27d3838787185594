import type { TransportKind } from './call-context';
import { CACHEABLE_METHODS, LONG_LIVED_METHODS, SELF_TIMED_METHODS, servesMethod } from './method-table';

const TRANSPORTS: TransportKind[] = ['streamable-http', 'simple-http', 'sse', 'stdio'];
const NON_SSE: TransportKind[] = ['streamable-http', 'simple-http', 'stdio'];

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
    it.each<TransportKind>(['streamable-http', 'stdio'])('is served to modern requests on %s', (transport) => {
      expect(servesMethod('modern', 'subscriptions/listen', transport)).toBe(true);
    });

    it.each<TransportKind>(['simple-http', 'sse'])('is not served on %s, which cannot hold its stream', (transport) => {
      expect(servesMethod('modern', 'subscriptions/listen', transport)).toBe(false);
    });

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

  it('holds exactly the six cacheable methods', () => {
    expect(CACHEABLE_METHODS.size).toBe(6);
  });
});

describe('LONG_LIVED_METHODS', () => {
  it('holds subscriptions/listen only', () => {
    expect([...LONG_LIVED_METHODS]).toEqual(['subscriptions/listen']);
  });
});
