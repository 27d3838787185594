import 'reflect-metadata';
import {
  type CanActivate,
  ConflictException,
  Controller,
  type ExecutionContext,
  Injectable,
  Module,
  type Provider,
  Scope,
  UseGuards,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { of } from 'rxjs';
import { McpExecutionContext } from '../context/mcp-execution-context';
import { McpCtx } from '../decorators/mcp-ctx.decorator';
import { McpRequest, McpArgs } from '../decorators/mcp-params.decorator';
import { McpPrompt } from '../decorators/mcp-prompt.decorator';
import { McpResource, McpResourceTemplate } from '../decorators/mcp-resource.decorator';
import { McpScopes, McpVisibilityGuard } from '../decorators/mcp-scopes.decorator';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpCallContext } from '../protocol/calls/call-context';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { isMcpError, isMcpToolError, type McpError } from '../protocol/messages/mcp-error';
import { McpRegistry, type SchemaCompiler } from '../registry/mcp-registry.service';
import { MCP_EXTENSION_PROVIDERS, MCP_OWN_REGISTRY, MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { resolveServerIdentity } from '../identity/server-identity';
import { McpExplorer } from './mcp.explorer';

const anySchema: SchemaCompiler = {
  compile: () => ({ jsonSchema: { type: 'object' }, validate: (value) => ({ ok: true, value }) }),
};

function callOf(name?: string): McpCallContext {
  return { requestId: 1, method: 'tools/call', name, era: 'modern', transport: 'http' } as unknown as McpCallContext;
}

const native = { request: { url: '/mcp', headers: {} }, response: {} };

async function explore(providers: Provider[], controllers: Array<new (...args: never[]) => unknown> = []) {
  @Module({
    imports: [DiscoveryModule],
    providers: [
      ...providers,
      McpExplorer,
      { provide: MCP_OWN_REGISTRY, useValue: new McpRegistry(anySchema) },
      { provide: MCP_EXTENSION_PROVIDERS, useValue: { extensions: [], methods: [], providers: [] } },
      // The one server of the application, which discovers everything.
      {
        provide: MCP_SERVER_IDENTITY,
        useValue: resolveServerIdentity({ name: 'fixture' }, { streamable: 'mcp' }, true, undefined),
      },
    ],
    controllers,
  })
  class FixtureModule {}
  const app = await Test.createTestingModule({ imports: [FixtureModule] }).compile();
  await app.init();
  return { app, registry: app.get<McpRegistry>(MCP_OWN_REGISTRY), explorer: app.get(McpExplorer) };
}

@Injectable()
class Notes {
  @McpTool({ description: 'Finds' })
  find(args: { q: string }, ctx: McpCallContext) {
    return `${args.q} #${String(ctx.requestId)}`;
  }

  @McpTool({ name: 'who' })
  who(@McpArgs('name') name: string, @McpRequest() request: { url: string }) {
    return `${name} via ${request.url}`;
  }

  @McpResource({ uri: 'notes://index' })
  index(args: { uri: string }) {
    return `read ${args.uri}`;
  }

  @McpResourceTemplate({ uriTemplate: 'notes://{id}', complete: { id: 'ids' } })
  note(@McpArgs('id') id: string) {
    return `note ${id}`;
  }

  @McpPrompt({ arguments: [{ name: 'who', complete: 'ids' }] })
  greet(@McpArgs() args: { who: string }, @McpCtx() ctx: McpCallContext) {
    return `hello ${args.who} (${ctx.era})`;
  }

  ids(value: string) {
    return [`${value}1`, `${value}2`];
  }

  notAHandler() {
    return undefined;
  }
}

describe('McpExplorer', () => {
  it('registers every kind of handler with its default name, and counts them', async () => {
    const { app, registry, explorer } = await explore([Notes]);
    try {
      expect(registry.listTools().map((tool) => tool.name)).toEqual(['find', 'who']);
      expect(registry.listResources().map((resource) => [resource.uri, resource.name])).toEqual([
        ['notes://index', 'index'],
      ]);
      expect(registry.listTemplates().map((template) => template.name)).toEqual(['note']);
      expect(registry.listPrompts().map((prompt) => prompt.name)).toEqual(['greet']);
      expect(explorer.discovered).toBe(5);
    } finally {
      await app.close();
    }
  });

  it('invokes each with its arguments, the call context and the transport request', async () => {
    const { app, registry } = await explore([Notes]);
    try {
      expect(await registry.getTool('find')!.invoke({ q: 'mcp' }, callOf('find'), undefined)).toBe('mcp #1');
      expect(await registry.getTool('who')!.invoke({ name: 'ada' }, callOf('who'), native)).toBe('ada via /mcp');
      expect(await registry.getResource('notes://index')!.read(callOf('notes://index'), native)).toBe(
        'read notes://index',
      );
      expect(await registry.getTemplate('notes://{id}')!.read('notes://7', { id: '7' }, callOf(), native)).toBe(
        'note 7',
      );
      expect(await registry.getPrompt('greet')!.get({ who: 'bob' }, callOf('greet'), undefined)).toBe(
        'hello bob (modern)',
      );
    } finally {
      await app.close();
    }
  });

  it('answers a synchronous method with its value, an asynchronous one with a promise, an Observable with its last value', async () => {
    @Injectable()
    class Kinds {
      @McpTool({ name: 'sync_tool' })
      syncTool() {
        return 'now';
      }

      @McpTool({ name: 'async_tool' })
      async asyncTool() {
        return 'later';
      }

      @McpTool({ name: 'observable_tool' })
      observableTool() {
        return of('first', 'last');
      }

      @McpTool({ name: 'throwing_tool' })
      throwingTool(): string {
        throw new ConflictException('not yours');
      }
    }
    const { app, registry } = await explore([Kinds]);
    try {
      // No promise for a value that is there: a turn of the microtask queue saved per call.
      expect(registry.getTool('sync_tool')!.invoke({}, callOf('sync_tool'), undefined)).toBe('now');
      const later = registry.getTool('async_tool')!.invoke({}, callOf('async_tool'), undefined);
      expect(later).toBeInstanceOf(Promise);
      expect(await later).toBe('later');
      expect(await registry.getTool('observable_tool')!.invoke({}, callOf('observable_tool'), undefined)).toBe('last');
      // Thrown at once, and translated like an asynchronous one.
      let thrown: unknown;
      try {
        registry.getTool('throwing_tool')!.invoke({}, callOf('throwing_tool'), undefined);
      } catch (error) {
        thrown = error;
      }
      expect(isMcpToolError(thrown)).toBe(true);
      expect((thrown as Error).message).toContain('not yours');
    } finally {
      await app.close();
    }
  });

  it('completes with a method of the same instance named in the options', async () => {
    const { app, registry } = await explore([Notes]);
    try {
      const context = { arguments: {}, call: callOf() };
      expect(await registry.getTemplate('notes://{id}')!.completions.id('a', context)).toEqual(['a1', 'a2']);
      expect(await registry.getPrompt('greet')!.completions.who('b', context)).toEqual(['b1', 'b2']);
    } finally {
      await app.close();
    }
  });

  it('writes nothing onto the classes it scans', async () => {
    const keysOf = () =>
      ['find', 'who', 'index', 'note', 'greet'].map((method) => Reflect.getMetadataKeys(Notes, method).sort());
    const before = keysOf();
    const { app } = await explore([Notes]);
    await app.close();
    expect(keysOf()).toEqual(before);
  });

  it('runs guards: a refusal is the access-denied error with the HTTP message and status', async () => {
    @Injectable()
    class Deny implements CanActivate {
      canActivate() {
        return false;
      }
    }
    @Injectable()
    class Guarded {
      @McpTool()
      @UseGuards(Deny)
      secret() {
        return 'secret';
      }
    }
    const { app, registry } = await explore([Guarded, Deny]);
    try {
      const error = await Promise.resolve(registry.getTool('secret')!.invoke({}, callOf('secret'), native)).catch(
        (caught: unknown) => caught,
      );
      expect(isMcpError(error)).toBe(true);
      expect((error as McpError).toJsonRpc()).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'Forbidden resource',
        data: { status: 403 },
      });
    } finally {
      await app.close();
    }
  });

  it('gives a request-scoped provider a fresh instance per call', async () => {
    let made = 0;
    @Injectable({ scope: Scope.REQUEST })
    class Scoped {
      readonly serial = ++made;
      @McpTool()
      serial_() {
        return this.serial;
      }
    }
    const { app, registry } = await explore([Scoped]);
    try {
      const tool = registry.getTool('serial_')!;
      const first = await tool.invoke({}, callOf(), { request: {} });
      const second = await tool.invoke({}, callOf(), { request: {} });
      expect(second).not.toBe(first);
    } finally {
      await app.close();
    }
  });

  it('registers handlers of controllers, and an aliased provider once', async () => {
    @Controller()
    class Endpoint {
      @McpTool()
      ping() {
        return 'pong';
      }
    }
    const { app, registry } = await explore([Notes, { provide: 'ALIAS', useExisting: Notes }], [Endpoint]);
    try {
      expect(registry.listTools().map((tool) => tool.name)).toEqual(['find', 'ping', 'who']);
      expect(await registry.getTool('ping')!.invoke({}, callOf(), undefined)).toBe('pong');
    } finally {
      await app.close();
    }
  });

  it('gives scopes and a visibility check that sees the transport request', async () => {
    @Injectable()
    @McpVisibilityGuard()
    class OnlyLocal implements CanActivate {
      canActivate(context: ExecutionContext) {
        const mcp = McpExecutionContext.create(context);
        return mcp.getRequest<{ url: string }>()?.url === '/mcp' && mcp.getArgs() === undefined;
      }
    }
    @Injectable()
    @McpScopes('admin')
    class Admin {
      @McpTool()
      @UseGuards(OnlyLocal)
      purge() {
        return 'purged';
      }
    }
    const { app, registry } = await explore([Admin, OnlyLocal]);
    try {
      const { access } = registry.getTool('purge')!;
      expect(access?.scopes).toEqual(['admin']);
      expect(await access!.visible!(callOf(), native)).toBe(true);
      expect(await access!.visible!(callOf(), undefined)).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('refuses a method with two handler decorators, naming it', async () => {
    @Injectable()
    class Twice {
      @McpTool()
      @McpPrompt()
      both() {
        return undefined;
      }
    }
    const error = await explore([Twice]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain('Twice.both carries more than one');
  });

  it('names the method in a registration error', async () => {
    @Injectable()
    class Broken {
      @McpResourceTemplate({ uriTemplate: 'x://{id}', complete: { id: 'missing' } })
      read() {
        return undefined;
      }
    }
    const error = await explore([Broken]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain('Broken.read names the completion method "missing"');
  });
});
