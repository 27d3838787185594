import 'reflect-metadata';
import {
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseGuards,
  UseInterceptors,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { McpCtx } from '../decorators/mcp-ctx.decorator';
import { McpRequest, McpArgs } from '../decorators/mcp-params.decorator';
import { McpPrompt } from '../decorators/mcp-prompt.decorator';
import { McpResource, McpResourceTemplate } from '../decorators/mcp-resource.decorator';
import { McpScopes, McpVisibilityGuard } from '../decorators/mcp-scopes.decorator';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { MCP_DEFAULT_PARAMS_METADATA, McpParamType } from '../shared/mcp.constants';
import { McpMetadataAccessor } from './mcp-metadata.accessor';
import { ROUTE_ARGS_METADATA } from '../shared/nest-internals';

@Injectable()
@McpVisibilityGuard()
class VisibilityGuard {
  canActivate(): boolean {
    return true;
  }
}

@Injectable()
class PlainGuard {
  canActivate(): boolean {
    return true;
  }
}

const Current = createParamDecorator(() => 'user');

@Injectable()
class PassThrough implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

@McpScopes('notes:read')
@UseGuards(PlainGuard)
class Notes {
  @McpTool({ description: 'Finds' })
  find(args: unknown) {
    return args;
  }

  @McpTool()
  @McpScopes('notes:write')
  @UseGuards(VisibilityGuard)
  remove(@McpArgs('id') id: string, @McpCtx() ctx: unknown, @McpRequest() request: unknown) {
    return [id, ctx, request];
  }

  @McpResource({ uri: 'notes://index' })
  index() {
    return 'index';
  }

  @McpResourceTemplate({ uriTemplate: 'notes://{id}' })
  note(@McpArgs('id', ValidationPipe) id: string) {
    return id;
  }

  @McpPrompt({ name: 'summary' })
  @UseInterceptors(PassThrough)
  summary(@Current() user: string) {
    return user;
  }

  @McpTool()
  @McpPrompt()
  both() {
    return undefined;
  }

  plain() {
    return undefined;
  }
}

class Bare {
  @UsePipes(ValidationPipe)
  piped() {
    return undefined;
  }

  bare() {
    return undefined;
  }
}

describe('McpMetadataAccessor', () => {
  const accessor = new McpMetadataAccessor(new Reflector());
  const proto = Notes.prototype;

  it('tells the kind of handler and the options of its decorator', () => {
    expect(accessor.getHandlers(proto.find)).toEqual([{ kind: 'tool', options: { description: 'Finds' } }]);
    expect(accessor.getHandlers(proto.index)).toEqual([{ kind: 'resource', options: { uri: 'notes://index' } }]);
    expect(accessor.getHandlers(proto.note)).toEqual([
      { kind: 'resource template', options: { uriTemplate: 'notes://{id}' } },
    ]);
    expect(accessor.getHandlers(proto.summary)).toEqual([{ kind: 'prompt', options: { name: 'summary' } }]);
    expect(accessor.getHandlers(proto.plain)).toEqual([]);
  });

  it('finds every handler decorator of a method, for the explorer to refuse more than one', () => {
    expect(accessor.getHandlers(proto.both).map((handler) => handler.kind)).toEqual(['tool', 'prompt']);
  });

  it('gives the scopes of the class, then of the method', () => {
    expect(accessor.getScopes(Notes, proto.remove)).toEqual(['notes:read', 'notes:write']);
    expect(accessor.getScopes(Notes, proto.find)).toEqual(['notes:read']);
    expect(accessor.getScopes(Bare, Bare.prototype.bare)).toEqual([]);
  });

  it('gives the guards of the class, then of the method, and tells the visibility guards', () => {
    expect(accessor.getGuards(Notes, proto.remove)).toEqual([PlainGuard, VisibilityGuard]);
    expect(accessor.isVisibilityGuard(VisibilityGuard)).toBe(true);
    expect(accessor.isVisibilityGuard(new VisibilityGuard())).toBe(true);
    expect(accessor.isVisibilityGuard(PlainGuard)).toBe(false);
    expect(accessor.isVisibilityGuard(undefined)).toBe(false);
  });

  it('tells whether enhancers are bound to the class or the method', () => {
    expect(accessor.hasBoundEnhancers(Notes, proto.find)).toBe(true);
    expect(accessor.hasBoundEnhancers(Bare, Bare.prototype.piped)).toBe(true);
    expect(accessor.hasBoundEnhancers(Bare, Bare.prototype.bare)).toBe(false);
  });

  it('reads the parameters its decorators wrote, from Nest route arguments', () => {
    const layout = accessor.getParams(Notes, 'remove')!;
    expect(layout.metadataKey).toBe(ROUTE_ARGS_METADATA);
    expect([...layout.params].sort((a, b) => a.index - b.index)).toEqual([
      { index: 0, type: McpParamType.ARGS, data: 'id', custom: false, piped: false },
      { index: 1, type: McpParamType.CONTEXT, data: undefined, custom: false, piped: false },
      { index: 2, type: McpParamType.REQUEST, data: undefined, custom: false, piped: false },
    ]);
    expect(accessor.getParams(Notes, 'note')!.params).toEqual([
      { index: 0, type: McpParamType.ARGS, data: 'id', custom: false, piped: true },
    ]);
    expect(accessor.getParams(Notes, 'summary')!.params).toEqual([
      expect.objectContaining({ index: 0, custom: true, piped: false }),
    ]);
  });

  it('reads the (args, ctx) layout of a handler without parameter decorators', () => {
    expect(accessor.getParams(Notes, 'find')).toEqual({
      metadataKey: MCP_DEFAULT_PARAMS_METADATA,
      params: [
        { index: 0, type: McpParamType.ARGS, data: undefined, custom: false, piped: false },
        { index: 1, type: McpParamType.CONTEXT, data: undefined, custom: false, piped: false },
      ],
    });
    expect(accessor.getParams(Bare, 'bare')).toBeUndefined();
  });

  it('reads the handlers of a subclass from its parent', () => {
    class MoreNotes extends Notes {}
    expect(accessor.getHandlers(MoreNotes.prototype.find)).toHaveLength(1);
    expect(accessor.getScopes(MoreNotes, MoreNotes.prototype.remove)).toEqual(['notes:read', 'notes:write']);
    expect(accessor.getParams(MoreNotes, 'find')?.metadataKey).toBe(MCP_DEFAULT_PARAMS_METADATA);
  });
});
