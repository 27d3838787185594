import { canUseDirectCall, type DirectCallFacts } from './direct-call';
import type { McpParamMetadata } from './mcp-metadata.accessor';

const param = (over: Partial<McpParamMetadata> = {}): McpParamMetadata => ({
  index: 0,
  type: 3,
  data: undefined,
  custom: false,
  piped: false,
  ...over,
});

const plain: DirectCallFacts = {
  staticClassProvider: true,
  globalEnhancers: false,
  boundEnhancers: false,
  params: { metadataKey: 'nest-mcp:default-params', params: [param(), param({ index: 1, type: 1001 })] },
};

describe('canUseDirectCall', () => {
  const table: Array<[string, Partial<DirectCallFacts>, boolean]> = [
    ['a plain handler of a static class provider', {}, true],
    ['no parameters at all', { params: { metadataKey: '__routeArguments__', params: [] } }, true],
    ['a controller, factory or value provider (shadow host)', { staticClassProvider: false }, false],
    ['global enhancers', { globalEnhancers: true }, false],
    ['global enhancers that cannot be read', { globalEnhancers: undefined }, false],
    ['guards, interceptors, pipes or filters bound to it', { boundEnhancers: true }, false],
    ['no parameter layout', { params: undefined }, false],
    [
      'a custom parameter decorator',
      { params: { metadataKey: '__routeArguments__', params: [param({ custom: true, type: NaN })] } },
      false,
    ],
    [
      'pipes on a parameter',
      { params: { metadataKey: '__routeArguments__', params: [param(), param({ index: 1, piped: true })] } },
      false,
    ],
  ];

  it.each(table)('%s → %s', (_label, facts, expected) => {
    expect(canUseDirectCall({ ...plain, ...facts })).toBe(expected);
  });
});
