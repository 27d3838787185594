import { McpParamType } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';
import { mcpHandlerArgs, McpParamsFactory } from './mcp-params.factory';

describe('McpParamsFactory', () => {
  const factory = new McpParamsFactory();
  const call = { requestId: 1, method: 'tools/call' } as unknown as McpCallContext;
  const request = { url: '/mcp' };
  const response = { statusCode: 200 };
  const args = mcpHandlerArgs({ q: 'mcp', n: 2 }, call, { request, response });

  it('lays the handler arguments out as [request, response, args, call]', () => {
    expect(args).toEqual([request, response, { q: 'mcp', n: 2 }, call]);
    expect(mcpHandlerArgs('x', call, undefined)).toEqual([undefined, undefined, 'x', call]);
  });

  it.each([
    ['@McpArgs()', McpParamType.ARGS, undefined, { q: 'mcp', n: 2 }],
    ["@McpArgs('q')", McpParamType.ARGS, 'q', 'mcp'],
    ["@McpArgs('missing')", McpParamType.ARGS, 'missing', undefined],
    ['@McpCtx()', McpParamType.CONTEXT, undefined, call],
    ['@McpRequest()', McpParamType.REQUEST, undefined, request],
    ["Nest's @Body() data", 0, undefined, undefined],
    ["Nest's @Query()", 4, undefined, undefined],
  ])('maps %s', (_label, type, data, expected) => {
    expect(factory.exchangeKeyForValue(type, data, args)).toEqual(expected);
  });

  it('gives the arguments themselves to a property of arguments that are no object', () => {
    expect(factory.exchangeKeyForValue(McpParamType.ARGS, 'q', mcpHandlerArgs('text', call, undefined))).toBe('text');
  });

  it('gives no request on stdio', () => {
    expect(factory.exchangeKeyForValue(McpParamType.REQUEST, undefined, mcpHandlerArgs({}, call, undefined))).toBe(
      undefined,
    );
  });
});
