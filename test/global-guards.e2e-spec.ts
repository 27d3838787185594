/**
 * The common Nest setup: a global `APP_GUARD` that refuses every route not marked `@Public()`.
 * Out of the box it locks the MCP endpoints with Nest's 403 before the module's own
 * authentication runs; `endpointDecorators: [Public()]` marks the endpoints, and
 * `isMcpEndpoint(context)` lets a guard tell them apart. Either way the guards of tool calls still
 * run, and the application's own routes stay locked.
 */
import {
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isMcpEndpoint, McpCtx, McpModule, type McpModuleExtras, type McpModuleOptions, McpTool } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { exchange, modernHeaders, modernRequest, toolText } from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const IS_PUBLIC = 'app:is-public';
/** The application's own marker, as in the Nest documentation's recipe. */
const Public = () => SetMetadata(IS_PUBLIC, true);
const APP_KEY = 'app-secret';
const TOKEN = 'tok-bob';

/** What the guards saw, in order: `<context type>:<handler name>[:endpoint]`. */
const seen: string[] = [];

/** The application's global guard: public handlers pass, the rest need the app's own key. */
@Injectable()
class AppAuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    seen.push(`${context.getType()}:${context.getHandler().name}${isMcpEndpoint(context) ? ':endpoint' : ''}`);
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    if (context.getType() === 'http') {
      return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-app-key'] === APP_KEY;
    }
    return false;
  }
}

/** The same guard, written with `isMcpEndpoint()` instead of a mark on the endpoints. */
@Injectable()
class EndpointAwareGuard extends AppAuthGuard {
  override canActivate(context: ExecutionContext): boolean {
    if (isMcpEndpoint(context)) {
      // The module's own authentication (`auth`) decides.
      seen.push(`${context.getType()}:${context.getHandler().name}:endpoint`);
      return true;
    }
    return super.canActivate(context);
  }
}

/** A guard of one tool: only bob may call it. */
@Injectable()
class BobOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const ctx = context.getArgByIndex<McpCtx>(3);
    seen.push(`bob-only:${ctx.principal.id}`);
    return ctx.principal.id === 'bob';
  }
}

@Injectable()
class GuardedTools {
  @McpTool({ description: 'Open to everyone' })
  @Public()
  open_tool(): string {
    return 'open';
  }

  @McpTool({ description: 'Not marked public: the global guard refuses it' })
  closed_tool(): string {
    return 'closed';
  }

  @McpTool({ description: 'Public, with a guard of its own' })
  @Public()
  @UseGuards(BobOnlyGuard)
  bob_tool(): string {
    return 'hello bob';
  }
}

@Controller('app')
class AppRoutes {
  @Get('secret')
  secret(): string {
    return 'secret';
  }
}

function appModule(guard: typeof AppAuthGuard, mcp: Partial<McpModuleOptions> & McpModuleExtras): DynamicModule {
  @Module({})
  class GuardedAppModule {}
  return {
    module: GuardedAppModule,
    imports: [McpModule.forRoot({ name: 'guarded', version: '0.0.1', ...mcp })],
    controllers: [AppRoutes],
    providers: [GuardedTools, BobOnlyGuard, { provide: APP_GUARD, useClass: guard }],
  };
}

const callTool = (url: URL, name: string, headers: Record<string, string> = {}) =>
  exchange(url, {
    body: modernRequest('tools/call', { name, arguments: {} }),
    headers: { ...modernHeaders('tools/call', name), ...headers },
  });

describe.each(PLATFORMS)('a global APP_GUARD that refuses all but @Public() (%s)', (platform) => {
  let server: HttpApp | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
    seen.length = 0;
  });

  it("locks the endpoints with Nest's 403 when nothing marks them", async () => {
    server = await startHttpApp(appModule(AppAuthGuard, {}), { platform });
    const response = await callTool(server.url, 'open_tool');
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ statusCode: 403, message: 'Forbidden resource' });
  });

  it('serves the endpoints marked with endpointDecorators: [Public()], and the tool-call guards still run', async () => {
    server = await startHttpApp(appModule(AppAuthGuard, { endpointDecorators: [Public()] }), { platform });
    const client = new Client({ name: 'guards-e2e', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['bob_tool', 'closed_tool', 'open_tool']);
      expect(await client.callTool({ name: 'open_tool', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'open' }],
      });
      // The global guard runs on the call too, and refuses what is not public.
      await expect(client.callTool({ name: 'closed_tool', arguments: {} })).rejects.toMatchObject({
        code: -32004,
        data: { status: 403 },
      });
      // The tool's own guard runs: the caller is anonymous, not bob.
      await expect(client.callTool({ name: 'bob_tool', arguments: {} })).rejects.toMatchObject({ code: -32004 });
      expect(seen).toContain('mcp:closed_tool');
      expect(seen).toContain('bob-only:anonymous');
      expect(seen.filter((entry) => entry.endsWith(':endpoint')).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    // The application's own routes stay locked.
    expect((await exchange(new URL('/app/secret', server.baseUrl), { method: 'GET' })).status).toBe(403);
    const withKey = await exchange(new URL('/app/secret', server.baseUrl), {
      method: 'GET',
      headers: { 'x-app-key': APP_KEY },
    });
    expect(withKey.status).toBe(200);
  });

  it("lets isMcpEndpoint() hand the endpoints to the module's own authentication", async () => {
    server = await startHttpApp(
      appModule(EndpointAwareGuard, { auth: { bearer: { tokens: { [TOKEN]: { id: 'bob' } } } } }),
      { platform },
    );
    // Past the global guard, the module's authentication answers: 401 with its challenge.
    const anonymous = await callTool(server.url, 'bob_tool');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bob = await callTool(server.url, 'bob_tool', { authorization: `Bearer ${TOKEN}` });
    expect(toolText(bob)).toBe('hello bob');
    // On the tool call the guard sees an MCP context, not the endpoint.
    expect(seen).toContain('mcp:bob_tool');
    expect(seen).toContain('bob-only:bob');
    expect((await exchange(new URL('/app/secret', server.baseUrl), { method: 'GET' })).status).toBe(403);
  });
});
