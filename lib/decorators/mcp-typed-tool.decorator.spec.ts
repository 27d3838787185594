import 'reflect-metadata';
import { join } from 'node:path';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { expectErrorFixture } from '../../test/support/expect-error-fixture';
import { z } from 'zod';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MCP_TOOL_METADATA, McpParamType } from '../shared/mcp.constants';
import { McpCtx } from './mcp-ctx.decorator';
import type { McpCallContext } from '../protocol/calls/call-context';
import { McpRequest, McpArgs } from './mcp-params.decorator';
import { McpTypedTool } from './mcp-typed-tool.decorator';

const FIXTURE = join(__dirname, '..', '..', 'test', 'fixtures', 'typed-tool.types.ts');

describe('@McpTypedTool() types (the TypeScript compiler over test/fixtures/typed-tool.types.ts)', () => {
  const fixture = expectErrorFixture(FIXTURE);
  const { lines, directiveLines } = fixture;

  it('the fixture marks its wrong uses, each right above an @McpTypedTool', () => {
    expect(directiveLines.length).toBeGreaterThanOrEqual(8);
    for (const index of directiveLines) {
      expect(lines[index + 1].trim()).toMatch(/^@McpTypedTool\(/);
    }
  });

  it('the correct uses compile and every wrong use fails, at its own line only', () => {
    const { withDirectives, failingWithout } = fixture.check();
    // An unused @ts-expect-error (a wrong use that compiles) is itself an error.
    expect(withDirectives).toEqual([]);
    // Without the directives, the errors are exactly on the lines they marked.
    expect(failingWithout).toEqual(directiveLines.map((index) => index + 1));
  }, 120_000);
});

describe('@McpTypedTool() at run time', () => {
  const Input = z.object({ q: z.string() });

  const routeArgs = (target: object, key: string) =>
    Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) as Record<string, { index: number }> | undefined;

  it('is an @McpTool with the same options', () => {
    class Tools {
      @McpTypedTool({ name: 'find', description: 'Finds', input: Input })
      find(args: { q: string }) {
        return args.q;
      }
    }
    expect(Reflect.getMetadata(MCP_TOOL_METADATA, Tools.prototype.find)).toEqual({
      name: 'find',
      description: 'Finds',
      input: Input,
    });
    // No parameter decorators: the explorer gives the method (args, ctx) itself.
    expect(routeArgs(Tools.prototype, 'find')).toBeUndefined();
  });

  it('keeps (args, ctx) first when other parameter decorators are used', () => {
    class Tools {
      @McpTypedTool({ input: Input })
      find(args: { q: string }, ctx: McpCallContext, @McpRequest() request: unknown) {
        return [args, ctx, request];
      }
    }
    const params = routeArgs(Tools.prototype, 'find')!;
    expect(params[`${McpParamType.ARGS}:0`]).toMatchObject({ index: 0 });
    expect(params[`${McpParamType.CONTEXT}:1`]).toMatchObject({ index: 1 });
    expect(params[`${McpParamType.REQUEST}:2`]).toMatchObject({ index: 2 });
  });

  it('accepts @McpArgs() and @McpCtx() where it puts them anyway', () => {
    class Tools {
      @McpTypedTool({ input: Input })
      find(@McpArgs() args: { q: string }, @McpCtx() ctx: McpCallContext) {
        return [args, ctx];
      }
    }
    expect(Object.keys(routeArgs(Tools.prototype, 'find')!).sort()).toEqual(
      [`${McpParamType.ARGS}:0`, `${McpParamType.CONTEXT}:1`].sort(),
    );
  });

  const layouts: Array<[string, () => unknown, string]> = [
    [
      'the context first',
      () => {
        class CtxFirst {
          @McpTypedTool({ input: Input })
          find(@McpCtx() ctx: unknown) {
            return ctx;
          }
        }
        return CtxFirst;
      },
      'CtxFirst.find',
    ],
    [
      'one property of the arguments first',
      () => {
        class PropertyFirst {
          @McpTypedTool({ input: Input })
          find(@McpArgs('q') q: unknown) {
            return q;
          }
        }
        return PropertyFirst;
      },
      'PropertyFirst.find',
    ],
    [
      'the request second',
      () => {
        class RequestSecond {
          @McpTypedTool({ input: Input })
          find(args: unknown, @McpRequest() request: unknown) {
            return [args, request];
          }
        }
        return RequestSecond;
      },
      'RequestSecond.find',
    ],
  ];

  it.each(layouts)('refuses %s, naming the method', (_label, declare, where) => {
    let thrown: unknown;
    try {
      declare();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpConfigurationError);
    expect((thrown as Error).message).toContain(`${where} is an @McpTypedTool`);
    expect((thrown as Error).message).toContain('first parameter receives the arguments');
  });
});
