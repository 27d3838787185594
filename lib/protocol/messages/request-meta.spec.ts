import type { JSONObject } from './json-rpc';
import { decideEra, META_KEYS, metaOf, progressTokenOf, readModernEnvelope } from './request-meta';

const VERSION = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

function withMeta(meta: unknown): JSONObject {
  return { _meta: meta };
}

describe('META_KEYS', () => {
  it('uses the reserved keys of 2026-07-28', () => {
    expect(META_KEYS).toMatchObject({
      protocolVersion: VERSION,
      clientCapabilities: CAPABILITIES,
      clientInfo: CLIENT_INFO,
      logLevel: LOG_LEVEL,
      serverInfo: 'io.modelcontextprotocol/serverInfo',
      subscriptionId: 'io.modelcontextprotocol/subscriptionId',
    });
  });
});

type EraRow = [label: string, params: JSONObject | undefined, header: string | undefined, era: 'legacy' | 'modern'];

const ERA_ROWS: EraRow[] = [
  ['no params, no header', undefined, undefined, 'legacy'],
  ['empty params, no header', {}, undefined, 'legacy'],
  ['a modern header', {}, '2026-07-28', 'modern'],
  ['a legacy header', {}, '2025-11-25', 'legacy'],
  ['the oldest legacy header', {}, '2024-11-05', 'legacy'],
  ['an unknown header', {}, '2099-01-01', 'legacy'],
  ['a garbage header', {}, 'garbage', 'legacy'],
  ['a _meta version claim', withMeta({ [VERSION]: '2026-07-28' }), undefined, 'modern'],
  ['a _meta claim with a legacy header', withMeta({ [VERSION]: '2026-07-28' }), '2025-06-18', 'modern'],
  ['a _meta claim of an unknown version', withMeta({ [VERSION]: 'v999.0.0' }), undefined, 'modern'],
  ['a _meta claim that is not a string', withMeta({ [VERSION]: 7 }), undefined, 'modern'],
  ['a _meta without the version key', withMeta({ [CAPABILITIES]: {} }), undefined, 'legacy'],
  ['a _meta without the version key and a modern header', withMeta({ [CAPABILITIES]: {} }), '2026-07-28', 'modern'],
  ['a _meta that is not an object', withMeta('2026-07-28'), undefined, 'legacy'],
  ['a progress token only', withMeta({ progressToken: 1 }), undefined, 'legacy'],
];

describe('decideEra', () => {
  it.each(ERA_ROWS.map(([label, params, header, era]): EraRow => [`${label} → ${era}`, params, header, era]))(
    '%s',
    (_label, params, header, era) => {
      expect(decideEra(params, header)).toBe(era);
    },
  );
});

describe('readModernEnvelope', () => {
  const valid = { [VERSION]: '2026-07-28', [CAPABILITIES]: {} };

  it('reads the required fields; clientInfo and logLevel are optional', () => {
    expect(readModernEnvelope(withMeta(valid))).toEqual({ protocolVersion: '2026-07-28', clientCapabilities: {} });
  });

  it('reads every field when present', () => {
    const capabilities = { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const info = { name: 'client', version: '1.0.0' };
    expect(
      readModernEnvelope(
        withMeta({ [VERSION]: '2026-07-28', [CAPABILITIES]: capabilities, [CLIENT_INFO]: info, [LOG_LEVEL]: 'debug' }),
      ),
    ).toEqual({ protocolVersion: '2026-07-28', clientCapabilities: capabilities, clientInfo: info, logLevel: 'debug' });
  });

  it('returns an unknown version as is (support is decided later)', () => {
    expect(readModernEnvelope(withMeta({ ...valid, [VERSION]: 'v999.0.0' }))).toMatchObject({
      protocolVersion: 'v999.0.0',
    });
  });

  it.each<[string, JSONObject | undefined, string]>([
    ['no params', undefined, 'Missing required _meta field: _meta'],
    ['no _meta', {}, 'Missing required _meta field: _meta'],
    ['a _meta that is a string', withMeta('x'), 'Missing required _meta field: _meta'],
    ['a _meta that is an array', withMeta([]), 'Missing required _meta field: _meta'],
    ['a _meta that is null', withMeta(null), 'Missing required _meta field: _meta'],
    ['no protocolVersion', withMeta({ [CAPABILITIES]: {} }), `Missing required _meta field: ${VERSION}`],
    ['a numeric protocolVersion', withMeta({ ...valid, [VERSION]: 20260728 }), `Invalid _meta field: ${VERSION}`],
    ['an empty protocolVersion', withMeta({ ...valid, [VERSION]: '' }), `Invalid _meta field: ${VERSION}`],
    ['a null protocolVersion', withMeta({ ...valid, [VERSION]: null }), `Invalid _meta field: ${VERSION}`],
    ['no clientCapabilities', withMeta({ [VERSION]: '2026-07-28' }), `Missing required _meta field: ${CAPABILITIES}`],
    ['array clientCapabilities', withMeta({ ...valid, [CAPABILITIES]: [] }), `Invalid _meta field: ${CAPABILITIES}`],
    ['null clientCapabilities', withMeta({ ...valid, [CAPABILITIES]: null }), `Invalid _meta field: ${CAPABILITIES}`],
    ['string clientInfo', withMeta({ ...valid, [CLIENT_INFO]: 'me' }), `Invalid _meta field: ${CLIENT_INFO}`],
    ['unknown logLevel', withMeta({ ...valid, [LOG_LEVEL]: 'verbose' }), `Invalid _meta field: ${LOG_LEVEL}`],
    ['upper-case logLevel', withMeta({ ...valid, [LOG_LEVEL]: 'INFO' }), `Invalid _meta field: ${LOG_LEVEL}`],
    ['numeric logLevel', withMeta({ ...valid, [LOG_LEVEL]: 3 }), `Invalid _meta field: ${LOG_LEVEL}`],
  ])('refuses %s', (_label, params, message) => {
    expect(readModernEnvelope(params)).toBe(message);
  });

  it('reports the version before the capabilities', () => {
    expect(readModernEnvelope(withMeta({}))).toBe(`Missing required _meta field: ${VERSION}`);
  });

  it.each([['debug'], ['info'], ['notice'], ['warning'], ['error'], ['critical'], ['alert'], ['emergency']])(
    'accepts log level %s',
    (level) => {
      expect(readModernEnvelope(withMeta({ ...valid, [LOG_LEVEL]: level }))).toMatchObject({ logLevel: level });
    },
  );
});

describe('progressTokenOf', () => {
  it.each<[string, unknown, string | number | undefined]>([
    ['a string token', 'tok-1', 'tok-1'],
    ['an integer token', 7, 7],
    ['token 0', 0, 0],
    ['a fractional token', 1.5, 1.5],
    ['NaN', NaN, undefined],
    ['Infinity', Infinity, undefined],
    ['an object', { t: 1 }, undefined],
    ['null', null, undefined],
    ['a boolean', true, undefined],
  ])('%s', (_label, token, expected) => {
    expect(progressTokenOf(withMeta({ progressToken: token }))).toBe(expected);
  });

  it('is undefined without params or _meta', () => {
    expect(progressTokenOf(undefined)).toBeUndefined();
    expect(progressTokenOf({})).toBeUndefined();
    expect(progressTokenOf(withMeta('x'))).toBeUndefined();
  });
});

describe('metaOf', () => {
  it('returns the _meta object, or an empty object', () => {
    expect(metaOf(withMeta({ a: 1 }))).toEqual({ a: 1 });
    expect(metaOf(undefined)).toEqual({});
    expect(metaOf(withMeta([1]))).toEqual({});
  });
});
