import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../shared/nest-internals';
import {
  MCP_DEFAULT_PARAMS_METADATA,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_SCOPES_METADATA,
  MCP_TOOL_METADATA,
  MCP_VISIBILITY_GUARD_METADATA,
  McpParamType,
} from '../shared/mcp.constants';
import { McpCtx } from './mcp-ctx.decorator';
import { McpRequest, McpArgs } from './mcp-params.decorator';
import { McpPrompt, McpPromptMetadata } from './mcp-prompt.decorator';
import {
  McpResource,
  McpResourceMetadata,
  McpResourceTemplate,
  McpResourceTemplateMetadata,
} from './mcp-resource.decorator';
import { McpScopes, McpScopesMetadata, McpVisibilityGuard, McpVisibilityGuardMetadata } from './mcp-scopes.decorator';
import { McpTool, McpToolMetadata } from './mcp-tool.decorator';

const DEFAULT_LAYOUT = {
  [`${McpParamType.ARGS}:0`]: { index: 0, data: undefined, pipes: [] },
  [`${McpParamType.CONTEXT}:1`]: { index: 1, data: undefined, pipes: [] },
};

describe('handler decorators', () => {
  class Handlers {
    @McpTool({ name: 'find', description: 'Finds' })
    find() {
      return undefined;
    }

    @McpTool()
    tool() {
      return undefined;
    }

    @McpResource({ uri: 'notes://index', mimeType: 'application/json' })
    index() {
      return undefined;
    }

    @McpResourceTemplate({ uriTemplate: 'notes://{id}' })
    note(@McpArgs('id') id: string) {
      return id;
    }

    @McpPrompt({ name: 'greet' })
    greet() {
      return undefined;
    }

    @McpPrompt()
    prompt() {
      return undefined;
    }
  }
  const proto = Handlers.prototype;

  it.each([
    ['@McpTool', MCP_TOOL_METADATA, McpToolMetadata.KEY, 'find', { name: 'find', description: 'Finds' }],
    ['@McpTool without options', MCP_TOOL_METADATA, McpToolMetadata.KEY, 'tool', {}],
    [
      '@McpResource',
      MCP_RESOURCE_METADATA,
      McpResourceMetadata.KEY,
      'index',
      { uri: 'notes://index', mimeType: 'application/json' },
    ],
    [
      '@McpResourceTemplate',
      MCP_RESOURCE_TEMPLATE_METADATA,
      McpResourceTemplateMetadata.KEY,
      'note',
      { uriTemplate: 'notes://{id}' },
    ],
    ['@McpPrompt', MCP_PROMPT_METADATA, McpPromptMetadata.KEY, 'greet', { name: 'greet' }],
    ['@McpPrompt without options', MCP_PROMPT_METADATA, McpPromptMetadata.KEY, 'prompt', {}],
  ] as const)(
    '%s writes its options on the method, under its namespaced key',
    (_label, key, reflectableKey, method, options) => {
      expect(reflectableKey).toBe(key);
      expect(Reflect.getMetadata(key, proto[method])).toEqual(options);
    },
  );

  it('records the (args, ctx) layout on a method without parameter decorators, and leaves Nest route arguments alone', () => {
    for (const method of ['find', 'tool', 'index', 'greet', 'prompt']) {
      expect(Reflect.getMetadata(MCP_DEFAULT_PARAMS_METADATA, Handlers, method)).toEqual(DEFAULT_LAYOUT);
      expect(Reflect.getMetadata(ROUTE_ARGS_METADATA, Handlers, method)).toBeUndefined();
    }
  });

  it('records no layout where parameter decorators wrote theirs', () => {
    expect(Reflect.getMetadata(MCP_DEFAULT_PARAMS_METADATA, Handlers, 'note')).toBeUndefined();
    expect(Reflect.getMetadata(ROUTE_ARGS_METADATA, Handlers, 'note')).toEqual({
      [`${McpParamType.ARGS}:0`]: { index: 0, data: 'id', pipes: [] },
    });
  });
});

describe('parameter decorators', () => {
  class Params {
    all(@McpArgs() args: unknown, @McpCtx() ctx: unknown, @McpRequest() request: unknown) {
      return [args, ctx, request];
    }

    piped(@McpArgs(ValidationPipe) args: unknown, @McpArgs('q', ValidationPipe) q: unknown) {
      return [args, q];
    }
  }

  it('write Nest route arguments with the MCP parameter types', () => {
    expect(Reflect.getMetadata(ROUTE_ARGS_METADATA, Params, 'all')).toEqual({
      [`${McpParamType.ARGS}:0`]: { index: 0, data: undefined, pipes: [] },
      [`${McpParamType.CONTEXT}:1`]: { index: 1, data: undefined, pipes: [] },
      [`${McpParamType.REQUEST}:2`]: { index: 2, data: undefined, pipes: [] },
    });
  });

  it('@McpArgs() takes a property name and pipes', () => {
    expect(Reflect.getMetadata(ROUTE_ARGS_METADATA, Params, 'piped')).toEqual({
      [`${McpParamType.ARGS}:0`]: { index: 0, data: undefined, pipes: [ValidationPipe] },
      [`${McpParamType.ARGS}:1`]: { index: 1, data: 'q', pipes: [ValidationPipe] },
    });
  });
});

describe('access decorators', () => {
  @McpScopes('notes:read')
  class Scoped {
    @McpScopes('notes:write', 'notes:delete')
    remove() {
      return undefined;
    }
  }

  @McpVisibilityGuard()
  class Guard {}

  it('@McpScopes writes its scopes on a class or a method', () => {
    expect(McpScopesMetadata.KEY).toBe(MCP_SCOPES_METADATA);
    expect(Reflect.getMetadata(MCP_SCOPES_METADATA, Scoped)).toEqual(['notes:read']);
    expect(Reflect.getMetadata(MCP_SCOPES_METADATA, Scoped.prototype.remove)).toEqual(['notes:write', 'notes:delete']);
  });

  it('@McpVisibilityGuard marks a guard class', () => {
    expect(McpVisibilityGuardMetadata.KEY).toBe(MCP_VISIBILITY_GUARD_METADATA);
    expect(Reflect.getMetadata(MCP_VISIBILITY_GUARD_METADATA, Guard)).toBe(true);
  });
});
