/**
 * A route tool reaches exactly the route it names, as HTTP would, in every way a Nest app maps
 * routes, on Express and Fastify: HEADER and MEDIA_TYPE versioning (the first of several
 * versions, VERSION_NEUTRAL without one; CUSTOM refused at startup), routes of several paths,
 * global prefix exclusions, the path syntax of each router (optional segments, wildcards,
 * params in the controller path; hostile values kept on their route), `@Headers('x-name')`
 * inputs (never the forwarded or framing headers), a custom param decorator that sees the
 * forwarded credentials; and over stdio, nothing forwarded at all.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  Controller,
  createParamDecorator,
  type ExecutionContext,
  Get,
  Headers,
  Module,
  Param,
  Post,
  Req,
  RequestMethod,
  Version,
  VERSION_NEUTRAL,
  VersioningType,
} from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { Socket } from 'node:net';
import { McpConfigurationError, McpModule, McpRoute, McpRoutes } from 'nest-mcp';
import { McpStdioServer } from 'nest-mcp/stdio';
import { createE2eApp, type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { MODERN_REVISION, modernRequest } from './fixtures/raw-rpc';
import { StdioPeer } from './fixtures/stdio-fixture.module';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

type Request = { headers: Record<string, string | undefined>; params: Record<string, unknown> };

/** The `authorization` header the route's request holds, read by a custom param decorator. */
const CallerCredentials = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    context.switchToHttp().getRequest<Request>().headers.authorization ?? null,
);

@Controller('versioned')
@McpRoutes()
class VersionedController {
  @Get()
  @Version('1')
  one(): { served: string } {
    return { served: '1' };
  }

  @Get()
  @Version('2')
  two(): { served: string } {
    return { served: '2' };
  }

  @Get('many')
  @Version(['3', '4'])
  many(@Headers('x-api-version') sent: string): { served: string; sent: string } {
    return { served: '3|4', sent };
  }

  @Get('neutral')
  @Version(VERSION_NEUTRAL)
  neutral(@Headers('x-api-version') sent?: string): { served: string; sent: string | null } {
    return { served: 'neutral', sent: sent ?? null };
  }
}

@Controller()
@McpRoutes()
class StatusController {
  @Get('health')
  health(): { ok: boolean } {
    return { ok: true };
  }

  @Get('status/:id')
  read(@Param('id') id: string): { read: string } {
    return { read: id };
  }

  @Post('status/:id')
  touch(@Param('id') id: string): { touched: string } {
    return { touched: id };
  }
}

@Controller(['multi', 'multi-alias'])
@McpRoutes()
class MultiController {
  @Get(['first', 'second'])
  both(): { ok: boolean } {
    return { ok: true };
  }
}

/** What a route of the notes saw: its params as the platform hands them. */
function seen(req: Request): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(req.params)) {
    // Express 5 gives a wildcard as its segments, Fastify as one string.
    params[name === '*' ? 'wildcard' : name] = Array.isArray(value) ? value.join('/') : value;
  }
  return params;
}

/** Express 5 (path-to-regexp 8) syntax. */
@Controller('users/:userId/notes')
@McpRoutes()
class ExpressNotesController {
  @Get('page{/:n}')
  page(@Req() req: Request): Record<string, unknown> {
    return { route: 'page', ...seen(req) };
  }

  @Get('files/*splat')
  files(@Req() req: Request): Record<string, unknown> {
    return { route: 'files', ...seen(req) };
  }

  @Get('tree{/*rest}')
  tree(@Req() req: Request): Record<string, unknown> {
    return { route: 'tree', ...seen(req) };
  }

  /** The syntax of path-to-regexp 6, which Nest converts to `legacy/{*path}`. */
  @Get('legacy/*')
  legacy(@Req() req: Request): Record<string, unknown> {
    return { route: 'legacy', ...seen(req) };
  }

  @Get(':noteId')
  one(@Req() req: Request): Record<string, unknown> {
    return { route: 'one', ...seen(req) };
  }
}

/** Fastify (find-my-way) syntax. */
@Controller('users/:userId/notes')
@McpRoutes()
class FastifyNotesController {
  @Get('page/:n?')
  page(@Req() req: Request): Record<string, unknown> {
    return { route: 'page', ...seen(req) };
  }

  @Get('files/*')
  files(@Req() req: Request): Record<string, unknown> {
    return { route: 'files', ...seen(req) };
  }

  @Get(':noteId')
  one(@Req() req: Request): Record<string, unknown> {
    return { route: 'one', ...seen(req) };
  }
}

/** Any route the hostile values must never reach. */
@Controller('users/:userId')
@McpRoutes()
class SecretController {
  @Get('secret')
  secret(): { route: string } {
    return { route: 'secret' };
  }
}

@Controller('hdr')
@McpRoutes()
class HeaderController {
  @Get('echo')
  echo(
    @Headers('X-Tenant') tenant: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Headers('x-forwarded-for') forwardedFor: string | undefined,
    @Headers('content-length') _length: string | undefined,
    @Headers('host') _host: string | undefined,
    @Headers() _all: Record<string, string>,
    @CallerCredentials() credentials: string | null,
  ): Record<string, string | null> {
    return {
      tenant: tenant ?? null,
      authorization: authorization ?? null,
      forwardedFor: forwardedFor ?? null,
      credentials,
    };
  }

  @Get('caller')
  caller(@Req() req: { socket?: Socket; raw?: { socket: Socket } }): { remote: string | null } {
    return { remote: (req.raw?.socket ?? req.socket)?.remoteAddress ?? null };
  }
}

@Controller('panel')
@McpRoutes()
class PanelController {
  @Get()
  read(): { panel: boolean } {
    return { panel: true };
  }
}

@Controller({ path: 'hosted', host: 'api.example.com' })
@McpRoutes()
class HostedController {
  @Get()
  read(@Req() req: { hostname?: string; host?: string; headers: Record<string, string | undefined> }): {
    host: string | undefined;
  } {
    return { host: req.headers.host };
  }
}

/** Mounted at `admin` by `RouterModule`. */
@Module({ controllers: [PanelController] })
class AdminModule {}

function appModule(platform: HttpPlatform) {
  @Module({
    imports: [
      McpModule.forRoot({ name: 'fidelity', version: '1.0.0' }),
      AdminModule,
      RouterModule.register([{ path: 'admin', module: AdminModule }]),
    ],
    controllers: [
      VersionedController,
      StatusController,
      MultiController,
      platform === 'fastify' ? FastifyNotesController : ExpressNotesController,
      SecretController,
      HeaderController,
      HostedController,
    ],
  })
  class FidelityModule {}
  return FidelityModule;
}

async function startFidelity(platform: HttpPlatform): Promise<HttpApp> {
  return startHttpApp(appModule(platform), {
    platform,
    // Sets the prefix of the MCP endpoint's URL; `configure` sets it again with the exclusions.
    globalPrefix: 'api',
    configure: (app) => {
      app.setGlobalPrefix('api', { exclude: ['health', { path: 'status/:id', method: RequestMethod.GET }] });
      app.enableVersioning({ type: VersioningType.HEADER, header: 'X-API-Version' });
    },
  });
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(
    { name: 'fidelity', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

type CallResult = { isError?: boolean; structuredContent?: unknown; content: Array<{ text?: string }> };

describe.each(PLATFORMS)('route tools reach their route (%s)', (platform) => {
  let app: HttpApp;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallResult> =>
    (await client.callTool({ name, arguments: args })) as CallResult;

  beforeAll(async () => {
    app = await startFidelity(platform);
    client = await connect(app.url, { authorization: 'Bearer real', 'x-forwarded-for': '198.51.100.4' });
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  describe('HEADER versioning', () => {
    it("sends each route's version in the configured header", async () => {
      expect((await call('versioned_one')).structuredContent).toEqual({ served: '1' });
      expect((await call('versioned_two')).structuredContent).toEqual({ served: '2' });
    });

    it('asks a route of several versions for the first, and a neutral route for none', async () => {
      expect((await call('versioned_many')).structuredContent).toEqual({ served: '3|4', sent: '3' });
      expect((await call('versioned_neutral')).structuredContent).toEqual({ served: 'neutral', sent: null });
    });

    it('offers no input for the version header', async () => {
      const { tools } = await client.listTools();
      const neutral = tools.find((tool) => tool.name === 'versioned_neutral');
      expect(Object.keys(neutral?.inputSchema.properties ?? {})).toEqual([]);
    });
  });

  it('reaches a route excluded from the global prefix without it, and the others with it', async () => {
    expect((await call('status_health')).structuredContent).toEqual({ ok: true });
    expect((await call('status_read', { id: 'a' })).structuredContent).toEqual({ read: 'a' });
    expect((await call('status_touch', { id: 'b' })).structuredContent).toEqual({ touched: 'b' });
    const { tools } = await client.listTools();
    const described = Object.fromEntries(tools.map((tool) => [tool.name, tool.description]));
    expect(described).toMatchObject({
      status_health: 'GET /health',
      status_read: 'GET /status/:id',
      status_touch: 'POST /api/status/:id',
    });
    // HTTP agrees.
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${app.baseUrl}/api/status/b`, { method: 'POST' })).status).toBe(201);
  });

  it('makes one tool of a route of several paths, at the first', async () => {
    const { tools } = await client.listTools();
    expect(tools.filter((tool) => tool.name.startsWith('multi_')).map((tool) => tool.description)).toEqual([
      'GET /api/multi/first',
    ]);
    expect((await call('multi_both')).structuredContent).toEqual({ ok: true });
  });

  it("reaches a route under its module's RouterModule path", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'panel_read')?.description).toBe('GET /api/admin/panel');
    expect((await call('panel_read')).structuredContent).toEqual({ panel: true });
  });

  it("names the controller's host when it is served on one host only", async () => {
    expect((await call('hosted_read')).structuredContent).toEqual({ host: 'api.example.com' });
  });

  describe('the path syntax of the router', () => {
    it('lists optional params as not required, and params of the controller path as required', async () => {
      const { tools } = await client.listTools();
      const page = tools.find((tool) => tool.name.endsWith('_notes_page'))?.inputSchema;
      expect(page).toMatchObject({ properties: { userId: { type: 'string' }, n: { type: 'string' } } });
      expect(page?.required).toEqual(['userId']);
    });

    it('fills an optional segment, or leaves it out', async () => {
      const prefix = platform === 'fastify' ? 'fastify' : 'express';
      expect((await call(`${prefix}_notes_page`, { userId: 'u1' })).structuredContent).toEqual({
        route: 'page',
        userId: 'u1',
      });
      expect((await call(`${prefix}_notes_page`, { userId: 'u1', n: '2' })).structuredContent).toEqual({
        route: 'page',
        userId: 'u1',
        n: '2',
      });
    });

    it("fills a wildcard segment by segment, its '/' kept", async () => {
      const prefix = platform === 'fastify' ? 'fastify' : 'express';
      const name = platform === 'fastify' ? 'wildcard' : 'splat';
      for (const value of ['docs/a b/c?.md', 'docs/a%2F..%2F..%2Fsecret']) {
        const result = await call(`${prefix}_notes_files`, { userId: 'u 1', [name]: value });
        expect(result.structuredContent).toEqual({ route: 'files', userId: 'u 1', [name]: value });
      }
    });

    // find-my-way reads `*` itself (the test above); Express only has the converted and optional forms.
    (platform === 'express' ? it : it.skip)(
      'reads the paths Nest converts (`/*` is `{*path}`), and an optional wildcard',
      async () => {
        expect((await call('express_notes_legacy', { userId: 'u1', path: 'a/b' })).structuredContent).toEqual({
          route: 'legacy',
          userId: 'u1',
          path: 'a/b',
        });
        expect((await call('express_notes_legacy', { userId: 'u1' })).structuredContent).toEqual({
          route: 'legacy',
          userId: 'u1',
        });
        expect((await call('express_notes_tree', { userId: 'u1', rest: 'x/y' })).structuredContent).toEqual({
          route: 'tree',
          userId: 'u1',
          rest: 'x/y',
        });
      },
    );

    it('keeps a hostile value on its route: an encoded slash or dots in one param stay in it', async () => {
      const prefix = platform === 'fastify' ? 'fastify' : 'express';
      for (const noteId of ['../../secret', 'x/../../secret', 'a%2F..%2Fsecret']) {
        expect((await call(`${prefix}_notes_one`, { userId: 'u1', noteId })).structuredContent).toEqual({
          route: 'one',
          userId: 'u1',
          noteId,
        });
      }
    });

    it("refuses a value that would leave its route ('..', an empty segment) with -32602", async () => {
      const prefix = platform === 'fastify' ? 'fastify' : 'express';
      const name = platform === 'fastify' ? 'wildcard' : 'splat';
      for (const args of [
        { userId: 'u1', noteId: '..' },
        { userId: '..', noteId: 'secret' },
        { userId: 'u1', noteId: '' },
      ]) {
        await expect(call(`${prefix}_notes_one`, args)).rejects.toMatchObject({ code: -32602 });
      }
      for (const value of ['../../secret', 'a/../../../secret', 'a//b']) {
        await expect(call(`${prefix}_notes_files`, { userId: 'u1', [name]: value })).rejects.toMatchObject({
          code: -32602,
        });
      }
    });
  });

  describe("@Headers('x-name')", () => {
    it('is an optional string input, except forwarded and framing headers', async () => {
      const { tools } = await client.listTools();
      const echo = tools.find((tool) => tool.name === 'header_echo');
      expect(echo?.inputSchema.properties).toEqual({ 'x-tenant': { type: 'string', maxLength: 4096 } });
      expect(echo?.inputSchema.required).toBeUndefined();
    });

    it('sends the input as that header; the caller cannot set a forwarded one', async () => {
      const result = await call('header_echo', {
        'x-tenant': 'acme',
        authorization: 'Bearer forged',
        'x-forwarded-for': '10.0.0.1',
      });
      expect(result.structuredContent).toEqual({
        tenant: 'acme',
        authorization: 'Bearer real',
        forwardedFor: '198.51.100.4',
        credentials: 'Bearer real',
      });
    });

    it('refuses a header value with a line break (-32602)', async () => {
      await expect(call('header_echo', { 'x-tenant': 'a\r\nauthorization: Bearer forged' })).rejects.toMatchObject({
        code: -32602,
      });
    });
  });
});

describe.each(PLATFORMS)('MEDIA_TYPE versioning (%s)', (platform) => {
  @Controller({ path: 'media', version: '1' })
  class MediaOneController {
    @Get()
    @McpRoute()
    read(@Headers('accept') accept: string): { served: string; accept: string } {
      return { served: '1', accept };
    }
  }

  @Controller({ path: 'media', version: '2' })
  class MediaTwoController {
    @Get()
    @McpRoute()
    read(@Headers('accept') accept: string): { served: string; accept: string } {
      return { served: '2', accept };
    }
  }

  let app: HttpApp;

  beforeAll(async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'media', version: '1.0.0' })],
      controllers: [MediaOneController, MediaTwoController],
    })
    class MediaModule {}
    app = await startHttpApp(MediaModule, {
      platform,
      configure: (nest) => {
        nest.enableVersioning({ type: VersioningType.MEDIA_TYPE, key: 'v=' });
      },
    });
  });

  afterAll(async () => {
    await app.close();
  });

  it('asks for the version in the Accept media type', async () => {
    const client = await connect(app.url);
    try {
      expect((await client.callTool({ name: 'media_two_read', arguments: {} })).structuredContent).toEqual({
        served: '2',
        accept: 'application/json;v=2',
      });
      expect((await client.callTool({ name: 'media_one_read', arguments: {} })).structuredContent).toEqual({
        served: '1',
        accept: 'application/json;v=1',
      });
    } finally {
      await client.close();
    }
  });
});

describe.each(PLATFORMS)('route tools at startup (%s)', (platform) => {
  it('refuses a versioned route under CUSTOM versioning, naming it and the fix', async () => {
    @Controller('custom')
    class CustomController {
      @Get()
      @Version('1')
      @McpRoute()
      read(): string {
        return 'custom';
      }
    }
    const app = await createE2eApp(
      { imports: [McpModule.forRoot({ name: 'custom', version: '1.0.0' })], controllers: [CustomController] },
      {
        platform,
        configure: (nest) => {
          nest.enableVersioning({ type: VersioningType.CUSTOM, extractor: () => '1' });
        },
      },
    );
    const failure = await app.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpConfigurationError);
    expect((failure as Error).message).toMatch(/CustomController\.read.*CUSTOM.*VERSION_NEUTRAL/);
    await app.close();
  });

  it('refuses a header input named like a path param, naming the route', async () => {
    @Controller('clash')
    class ClashController {
      @Get(':id')
      @McpRoute()
      read(@Param('id') id: string, @Headers('id') header: string): string {
        return id + header;
      }
    }
    const app = await createE2eApp(
      { imports: [McpModule.forRoot({ name: 'clash', version: '1.0.0' })], controllers: [ClashController] },
      { platform },
    );
    await expect(app.init()).rejects.toThrow(/ClashController\.read.*"id"/);
    await app.close();
  });
});

describe.each(PLATFORMS)('route tools over stdio (%s)', (platform) => {
  let app: HttpApp;
  let peer: StdioPeer;

  beforeAll(async () => {
    app = await startFidelity(platform);
    peer = new StdioPeer(app.app.get(McpStdioServer));
  });

  afterAll(async () => {
    await peer.end();
    await app.close();
  });

  it('forwards nothing: no authorization, no proxy header; the address is loopback', async () => {
    peer.send(modernRequest('tools/call', { name: 'header_echo', arguments: { 'x-tenant': 't' } }, 1));
    expect((await peer.answer(1)).result?.structuredContent).toEqual({
      tenant: 't',
      authorization: null,
      forwardedFor: null,
      credentials: null,
    });
    peer.send(modernRequest('tools/call', { name: 'header_caller', arguments: {} }, 2));
    expect((await peer.answer(2)).result?.structuredContent).toEqual({ remote: '127.0.0.1' });
  });
});
