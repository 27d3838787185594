/**
 * The common Nest setup: a global `APP_GUARD` that refuses every route not marked `@Public()`,
 * beside a global interceptor and a global filter. The module serves its endpoint routes itself,
 * as `@nestjs/graphql` does: the application's global enhancers never wrap them (no 403 from the
 * app's guard on the endpoint, nothing marked), and run once around each MCP call (context type
 * `'mcp'`), where the app's guard refuses what is not `@Public()`. Guards the application puts on
 * the endpoints with `endpointDecorators` do run there, once per HTTP request, and a refusal is
 * a JSON-RPC answer. The application's own routes stay locked.
 */
import {
  type CallHandler,
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type NestInterceptor,
  SetMetadata,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { APP_GUARD, APP_INTERCEPTOR, Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  isMcpEndpoint,
  type McpCallContext,
  McpModule,
  type McpModuleExtras,
  type McpModuleOptions,
  McpTool,
} from 'nest-mcp';
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

/** The application's global interceptor: what it wrapped, as `<context type>:<handler name>`. */
const intercepted: string[] = [];

@Injectable()
class AppInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    intercepted.push(`${context.getType()}:${context.getHandler().name}`);
    return next.handle();
  }
}

/** A guard the application puts on the endpoints (`endpointDecorators`): a header opens them. */
@Injectable()
class EndpointKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    seen.push(`endpoint-key:${context.getType()}${isMcpEndpoint(context) ? ':endpoint' : ''}`);
    return (
      context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-endpoint-key'] === 'open'
    );
  }
}

/** A guard of one tool: only bob may call it. */
@Injectable()
class BobOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const ctx = context.getArgByIndex<McpCallContext>(3);
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
    providers: [
      GuardedTools,
      BobOnlyGuard,
      { provide: APP_GUARD, useClass: guard },
      { provide: APP_INTERCEPTOR, useClass: AppInterceptor },
    ],
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
    intercepted.length = 0;
  });

  it('never wraps the endpoints: unmarked, they are served, and the app guard runs once around each call', async () => {
    server = await startHttpApp(appModule(AppAuthGuard, {}), { platform });
    const client = new Client({ name: 'guards-e2e', version: '0.0.1' });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['bob_tool', 'closed_tool', 'open_tool']);
      seen.length = 0;
      intercepted.length = 0;
      expect(await client.callTool({ name: 'open_tool', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'open' }],
      });
      // One HTTP request, one call: the global guard and interceptor ran once each, around the call.
      expect(seen).toEqual(['mcp:open_tool']);
      expect(intercepted).toEqual(['mcp:open_tool']);
      // The global guard refuses what is not public: an access-denied error, not a tool result.
      await expect(client.callTool({ name: 'closed_tool', arguments: {} })).rejects.toMatchObject({
        code: -32004,
        data: { status: 403 },
      });
      // The tool's own guard runs: the caller is anonymous, not bob.
      await expect(client.callTool({ name: 'bob_tool', arguments: {} })).rejects.toMatchObject({ code: -32004 });
      expect(seen).toContain('bob-only:anonymous');
      expect(seen.filter((entry) => entry.startsWith('http:'))).toEqual([]);
      expect(intercepted.filter((entry) => entry.startsWith('http:'))).toEqual([]);
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
    expect(intercepted).toContain('http:secret');
  });

  it('answers a HEAD 405 with Allow, without running the app guard', async () => {
    server = await startHttpApp(appModule(AppAuthGuard, {}), { platform });
    const head = await exchange(server.url, { method: 'HEAD' });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
    expect(seen).toEqual([]);
    expect(intercepted).toEqual([]);
  });

  it('runs the guards of endpointDecorators once per HTTP request; a refusal is a JSON-RPC 403', async () => {
    server = await startHttpApp(appModule(AppAuthGuard, { endpointDecorators: [UseGuards(EndpointKeyGuard)] }), {
      platform,
    });
    const refused = await callTool(server.url, 'open_tool');
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32004, data: { status: 403 } } });
    expect(seen).toEqual(['endpoint-key:http:endpoint']);
    seen.length = 0;
    const served = await callTool(server.url, 'open_tool', { 'x-endpoint-key': 'open' });
    expect(toolText(served)).toBe('open');
    expect(seen).toEqual(['endpoint-key:http:endpoint', 'mcp:open_tool']);
  });

  it('refuses at startup the interceptors, pipes and filters of endpointDecorators, which would not run', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [appModule(AppAuthGuard, { endpointDecorators: [UseInterceptors(AppInterceptor)] })],
    }).compile();
    const app =
      platform === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    try {
      await expect(app.init()).rejects.toThrow(
        /endpointDecorators of server "guarded" add interceptors to its endpoints/,
      );
    } finally {
      await app.close().catch(() => undefined);
    }
  });

  it("leaves the endpoints to the module's own authentication, and the guard sees only MCP calls", async () => {
    server = await startHttpApp(
      appModule(EndpointAwareGuard, { auth: { bearer: { tokens: { [TOKEN]: { id: 'bob' } } } } }),
      { platform },
    );
    // The module's authentication answers: 401 with its challenge.
    const anonymous = await callTool(server.url, 'bob_tool');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bob = await callTool(server.url, 'bob_tool', { authorization: `Bearer ${TOKEN}` });
    expect(toolText(bob)).toBe('hello bob');
    expect(seen).toEqual(['mcp:bob_tool', 'bob-only:bob']);
    expect((await exchange(new URL('/app/secret', server.baseUrl), { method: 'GET' })).status).toBe(403);
  });
});
