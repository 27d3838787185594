/**
 * Existing REST routes as MCP tools (`@McpRoute`, `@McpRoutes`), on Express and Fastify, with a
 * realistic app: a notes controller at `api/v1/notes` (global prefix, URI versioning) documented
 * with `@nestjs/swagger`, class-validator DTOs, a global `ValidationPipe({ whitelist: true })`, a
 * `ParseIntPipe` param, a `NotFoundException`, a DELETE behind an API-key guard and a roles
 * guard, a file download, and an interceptor that counts its runs. Both client eras list the
 * chosen routes (and not the unchosen one) exactly as pinned below, and call them: the call goes
 * through the route's own pipeline, with the MCP request's credentials (`forwardHeaders`) for its
 * guards; the same routes still answer plain HTTP unchanged.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallHandler,
  type CanActivate,
  Body,
  Controller,
  Delete,
  type ExecutionContext,
  Get,
  Headers,
  Req,
  Res,
  HttpCode,
  Injectable,
  InternalServerErrorException,
  type NestInterceptor,
  NotFoundException,
  Param,
  ParseIntPipe,
  Post,
  Query,
  SetMetadata,
  StreamableFile,
  UseGuards,
  UseInterceptors,
  ValidationPipe,
  VersioningType,
  Module,
  Scope,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { McpConfigurationError, McpModule, McpRoute, McpRoutes } from 'nest-mcp';
import { tap } from 'rxjs';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type HttpApp, type HttpPlatform, createE2eApp, startHttpApp } from './fixtures/http-app';
import { createMcpTestClient } from 'nest-mcp/testing';
import { mcpApp } from './support/mcp-app';
import { connectEra, type EraClient } from './support/era-client';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const API_KEY = 'k-123';

class CreateNoteDto {
  @ApiProperty({ description: 'The title, at most 100 characters', example: 'Groceries' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  title!: string;

  @ApiPropertyOptional({ description: 'One word to find the note by', enum: ['work', 'home'] })
  @IsOptional()
  @IsString()
  tag?: string;
}

class NoteDto {
  @ApiProperty({ description: 'Note id' })
  id!: number;

  @ApiProperty()
  title!: string;

  @ApiPropertyOptional()
  tag?: string;
}

/** Bytes no text decoding leaves intact: the download must arrive as they are. */
const EXPORT = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x80, 0x0a]);

interface Note {
  id: number;
  title: string;
  tag?: string;
}

const Roles = (...roles: string[]) => SetMetadata('roles', roles);

@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    return request.headers['x-api-key'] === API_KEY;
  }
}

@Injectable()
class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.get<string[] | undefined>('roles', context.getHandler()) ?? [];
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    return roles.every((role) => (request.headers['x-role'] ?? '').split(',').includes(role));
  }
}

@Injectable()
class CountingInterceptor implements NestInterceptor {
  static runs = 0;

  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle().pipe(tap(() => (CountingInterceptor.runs += 1)));
  }
}

@ApiTags('notes')
@Controller({ path: 'notes', version: '1' })
@UseInterceptors(CountingInterceptor)
class NotesController {
  private readonly notes = new Map<number, Note>([[1, { id: 1, title: 'First', tag: 'work' }]]);
  private nextId = 2;

  @Get()
  @McpRoute()
  @ApiOperation({ summary: 'List notes', description: 'All of them, or those with one tag.' })
  @ApiQuery({ name: 'tag', required: false, description: 'Only the notes with this tag' })
  list(@Query('tag') tag?: string): { notes: Note[] } {
    return { notes: [...this.notes.values()].filter((note) => tag === undefined || note.tag === tag) };
  }

  @Get(':id')
  @McpRoute({ description: 'One note by id' })
  @ApiParam({ name: 'id', description: 'The note id' })
  @ApiOkResponse({ type: NoteDto })
  findOne(@Param('id', ParseIntPipe) id: number): Note {
    const note = this.notes.get(id);
    if (note === undefined) {
      throw new NotFoundException(`Note ${id} not found`);
    }
    return note;
  }

  @Post()
  @McpRoute()
  @ApiOperation({ operationId: 'create_note', summary: 'Create a note' })
  @ApiCreatedResponse({ type: NoteDto })
  create(@Body() dto: CreateNoteDto): Note {
    const note = { id: this.nextId++, ...dto };
    this.notes.set(note.id, note);
    return note;
  }

  @Delete(':id')
  @HttpCode(204)
  @UseGuards(ApiKeyGuard, RolesGuard)
  @Roles('admin')
  @McpRoute()
  remove(@Param('id', ParseIntPipe) id: number): void {
    this.notes.delete(id);
  }

  @Get(':id/export')
  @McpRoute()
  @ApiOperation({ summary: 'The note as a file' })
  export(@Param('id', ParseIntPipe) id: number): StreamableFile {
    return new StreamableFile(EXPORT, {
      type: 'application/pdf',
      disposition: `attachment; filename="note-${id}.pdf"`,
    });
  }

  /** Not chosen: never a tool. */
  @Get('admin/stats')
  stats(): { count: number } {
    return { count: this.notes.size };
  }
}

@Module({ controllers: [NotesController], providers: [CountingInterceptor] })
class NotesModule {}

const MCP = McpModule.forRoot({
  name: 'routes-e2e',
  version: '1.0.0',
  routes: { forwardHeaders: ['x-api-key', 'x-role'] },
});

async function startNotes(platform: HttpPlatform): Promise<HttpApp> {
  @Module({ imports: [MCP, NotesModule] })
  class RootModule {}
  return startHttpApp(RootModule, {
    platform,
    globalPrefix: 'api',
    configure: (app) => {
      app.enableVersioning({ type: VersioningType.URI });
      app.useGlobalPipes(new ValidationPipe({ whitelist: true }));
    },
  });
}

/** `NoteDto`, the `outputSchema` of the routes that answer one note. */
const NOTE_OUTPUT = {
  type: 'object',
  properties: { id: { type: 'number', description: 'Note id' }, title: { type: 'string' }, tag: { type: 'string' } },
  required: ['id', 'title'],
};

/**
 * What both clients must list, whole: the chosen routes (not `stats`), named by `@McpRoute`,
 * `@ApiOperation({ operationId })` or `controller_method`; described by `@McpRoute`, the
 * operation's summary and description, or the verb and path; the inputs from the path, the
 * query and the body DTO with `@ApiProperty` / `@ApiQuery` / `@ApiParam` words and without the
 * DTO's value constraints (`MaxLength` is the ValidationPipe's to judge); `outputSchema` from
 * `@ApiOkResponse` / `@ApiCreatedResponse`; hints from the verb.
 */
const EXPECTED_TOOLS = [
  {
    name: 'create_note',
    description: 'Create a note',
    inputSchema: {
      type: 'object',
      properties: {
        body: {
          type: 'object',
          properties: {
            title: {
              type: 'string',
              description: 'The title, at most 100 characters',
              examples: ['Groceries'],
            },
            tag: {
              type: 'string',
              description: 'One word to find the note by',
              enum: ['work', 'home'],
            },
          },
          required: ['title'],
        },
      },
      required: ['body'],
    },
    outputSchema: NOTE_OUTPUT,
    annotations: {
      readOnlyHint: false,
    },
  },
  {
    name: 'notes_export',
    description: 'The note as a file',
    inputSchema: {
      type: 'object',
      properties: {
        id: {
          type: 'integer',
        },
      },
      required: ['id'],
    },
    annotations: {
      readOnlyHint: true,
    },
  },
  {
    name: 'notes_find_one',
    description: 'One note by id',
    inputSchema: {
      type: 'object',
      properties: {
        id: {
          type: 'integer',
          description: 'The note id',
        },
      },
      required: ['id'],
    },
    outputSchema: NOTE_OUTPUT,
    annotations: {
      readOnlyHint: true,
    },
  },
  {
    name: 'notes_list',
    description: 'List notes\n\nAll of them, or those with one tag.',
    inputSchema: {
      type: 'object',
      properties: {
        tag: {
          type: 'string',
          description: 'Only the notes with this tag',
        },
      },
    },
    annotations: {
      readOnlyHint: true,
    },
  },
  {
    name: 'notes_remove',
    description: 'DELETE /api/v1/notes/:id',
    inputSchema: {
      type: 'object',
      properties: {
        id: {
          type: 'integer',
        },
      },
      required: ['id'],
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    },
  },
];

function textOf(result: Record<string, unknown>): string {
  return (result.content as Array<{ text: string }>)[0].text;
}

describe.each(PLATFORMS)('REST routes as MCP tools (%s)', (platform) => {
  let app: HttpApp;

  beforeAll(async () => {
    app = await startNotes(platform);
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(['v1', 'v2'] as const)('with the %s client', (era) => {
    let client: EraClient;

    beforeEach(async () => {
      client = await connectEra(era, app.url);
    });

    afterEach(async () => {
      await client.close();
    });

    it('lists the chosen routes with their names, schemas, descriptions and annotations', async () => {
      const { tools } = await client.listTools();
      expect([...tools].sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(EXPECTED_TOOLS);
    });

    it('calls a route through its own pipeline, query and path params included', async () => {
      const before = CountingInterceptor.runs;
      const list = await client.callTool({ name: 'notes_list', arguments: { tag: 'work' } });
      expect(list.isError).toBeFalsy();
      expect(list.structuredContent).toEqual({ notes: [{ id: 1, title: 'First', tag: 'work' }] });
      expect(JSON.parse(textOf(list))).toEqual(list.structuredContent);
      const one = await client.callTool({ name: 'notes_find_one', arguments: { id: 1 } });
      expect(one.structuredContent).toEqual({ id: 1, title: 'First', tag: 'work' });
      expect(CountingInterceptor.runs - before).toBe(2);
    });

    it('creates through the global ValidationPipe (whitelist) and returns its message as isError', async () => {
      const created = await client.callTool({
        name: 'create_note',
        arguments: { body: { title: `From ${era}`, extra: 'dropped' } },
      });
      expect(created.structuredContent).toEqual({ id: expect.any(Number), title: `From ${era}` });
      const refused = await client.callTool({ name: 'create_note', arguments: { body: { title: '' } } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('HTTP 400: title should not be empty');
    });

    it('downloads a file as an embedded resource with its exact bytes', async () => {
      const exported = await client.callTool({ name: 'notes_export', arguments: { id: 1 } });
      const resource = (exported.content as Array<{ type: string; resource?: Record<string, string> }>).find(
        (block) => block.type === 'resource',
      )?.resource;
      expect(resource).toMatchObject({ mimeType: 'application/pdf', uri: `${app.baseUrl}/api/v1/notes/1/export` });
      expect(Buffer.from(resource?.blob ?? '', 'base64')).toEqual(EXPORT);
    });

    it('answers a missing note with the NotFoundException as isError', async () => {
      const missing = await client.callTool({ name: 'notes_find_one', arguments: { id: 999 } });
      expect(missing).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'HTTP 404: Note 999 not found' }],
      });
    });

    it("is refused by the route's own guards without the key or the role, and runs with both", async () => {
      const created = await client.callTool({ name: 'create_note', arguments: { body: { title: 'To delete' } } });
      const id = (created.structuredContent as Note).id;
      const refused = await client.callTool({ name: 'notes_remove', arguments: { id } });
      expect(refused).toMatchObject({ isError: true, content: [{ text: 'HTTP 403: Forbidden resource' }] });
      const keyOnly = await connectEra(era, app.url, { 'x-api-key': API_KEY, 'x-role': 'reader' });
      try {
        expect(await keyOnly.callTool({ name: 'notes_remove', arguments: { id } })).toMatchObject({ isError: true });
      } finally {
        await keyOnly.close();
      }
      const admin = await connectEra(era, app.url, { 'x-api-key': API_KEY, 'x-role': 'admin' });
      try {
        const removed = await admin.callTool({ name: 'notes_remove', arguments: { id } });
        expect(removed).toMatchObject({ content: [{ type: 'text', text: 'HTTP 204' }] });
        expect(removed.isError).toBeFalsy();
      } finally {
        await admin.close();
      }
      const gone = await client.callTool({ name: 'notes_find_one', arguments: { id } });
      expect(gone.isError).toBe(true);
    });
  });

  it('leaves the same routes unchanged over plain HTTP', async () => {
    const base = app.baseUrl;
    const list = await fetch(`${base}/api/v1/notes?tag=work`);
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ notes: [{ id: 1, title: 'First', tag: 'work' }] });
    const invalid = await fetch(`${base}/api/v1/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: '' }),
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ message: ['title should not be empty'] });
    expect((await fetch(`${base}/api/v1/notes/1`, { method: 'DELETE' })).status).toBe(403);
    expect((await fetch(`${base}/api/v1/notes/admin/stats`)).status).toBe(200);
  });
});

@Controller('edge')
@McpRoutes()
class EdgeController {
  @Get('headers')
  headers(@Headers() headers: Record<string, string>): Record<string, string | null> {
    return { authorization: headers.authorization ?? null, 'x-api-key': headers['x-api-key'] ?? null };
  }

  /** Who the route sees calling: its connection's address and the proxy header, as the platform hands them. */
  @Get('caller')
  caller(@Req() req: { headers: Record<string, string | undefined>; socket?: Socket; raw?: { socket: Socket } }): {
    remote: string | null;
    forwardedFor: string | null;
  } {
    const socket = req.raw?.socket ?? req.socket;
    return { remote: socket?.remoteAddress ?? null, forwardedFor: req.headers['x-forwarded-for'] ?? null };
  }

  @Get('big')
  big(): { text: string } {
    return { text: 'x'.repeat(4096) };
  }

  static started: () => void = () => undefined;
  static left: (early: boolean) => void = () => undefined;

  /** Answers when its client leaves: whether it left before the answer was written. */
  @Get('slow')
  slow(@Res({ passthrough: true }) res: { raw?: ServerResponse } & ServerResponse): Promise<{ ok: boolean }> {
    const raw = res.raw ?? res;
    EdgeController.started();
    return new Promise((resolve) =>
      raw.once('close', () => {
        EdgeController.left(!raw.writableEnded);
        resolve({ ok: true });
      }),
    );
  }

  @Get('boom')
  boom(): never {
    // Nest words this one in the body: the tool's caller must not see it.
    throw new InternalServerErrorException('db password is hunter2');
  }
}

/** Made once per HTTP request: its number says which request built it. */
@Injectable({ scope: Scope.REQUEST })
class PerRequest {
  static made = 0;
  readonly serial = (PerRequest.made += 1);
}

@Controller('scoped')
class ScopedController {
  constructor(private readonly perRequest: PerRequest) {}

  @Get()
  @McpRoute()
  serial(): { serial: number } {
    return { serial: this.perRequest.serial };
  }
}

describe.each(PLATFORMS)('route tools at their bounds (%s)', (platform) => {
  let app: HttpApp;
  let client: EraClient;

  beforeAll(async () => {
    @Module({
      imports: [McpModule.forRoot({ name: 'edge-routes', version: '1.0.0', routes: { maxResponseBytes: 1024 } })],
      controllers: [EdgeController, ScopedController],
      providers: [PerRequest],
    })
    class EdgeModule {}
    app = await startHttpApp(EdgeModule, { platform });
    client = await connectEra('v2', app.url, {
      authorization: 'Bearer t-1',
      'x-api-key': 'not-forwarded',
      'x-forwarded-for': '203.0.113.7',
    });
  });

  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('forwards authorization and no header that forwardHeaders does not name', async () => {
    const echoed = await client.callTool({ name: 'edge_headers', arguments: {} });
    expect(echoed.structuredContent).toEqual({ authorization: 'Bearer t-1', 'x-api-key': null });
  });

  it("shows the route the caller's address and proxy header, as HTTP would", async () => {
    const seen = await client.callTool({ name: 'edge_caller', arguments: {} });
    // The test client's own connection is loopback too; what matters is that the route sees the
    // caller's connection and the header its proxy set (its trust-proxy setting decides the rest).
    expect(seen.structuredContent).toEqual({ remote: '127.0.0.1', forwardedFor: '203.0.113.7' });
  });

  it('gives request-scoped providers a fresh scope per call', async () => {
    const first = await client.callTool({ name: 'scoped_serial', arguments: {} });
    const second = await client.callTool({ name: 'scoped_serial', arguments: {} });
    const serials = [first, second].map((result) => (result.structuredContent as { serial: number }).serial);
    expect(serials[1]).toBe(serials[0] + 1);
  });

  it('fails a call whose response is over maxResponseBytes with -32603', async () => {
    await expect(client.callTool({ name: 'edge_big', arguments: {} })).rejects.toMatchObject({ code: -32603 });
  });

  it("closes the route's connection when the call is cancelled", async () => {
    const started = new Promise<void>((resolve) => (EdgeController.started = resolve));
    const left = new Promise<boolean>((resolve) => (EdgeController.left = resolve));
    const v1 = await connectEra('v1', app.url);
    const abort = new AbortController();
    try {
      const call = (v1 as unknown as V1Client).callTool({ name: 'edge_slow', arguments: {} }, undefined, {
        signal: abort.signal,
      });
      await started;
      abort.abort();
      await expect(call).rejects.toThrow();
      let timer: NodeJS.Timeout | undefined;
      const never = new Promise<string>(
        (resolve) => (timer = setTimeout(() => resolve('the route never saw its client leave'), 3000)),
      );
      expect(await Promise.race([left, never])).toBe(true);
      clearTimeout(timer);
    } finally {
      await v1.close();
    }
  });

  it('turns a 5xx into -32603 without the details', async () => {
    const failure = await client.callTool({ name: 'edge_boom', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string },
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.message).not.toContain('hunter2');
  });
});

@Controller('reports')
class ReportsController {
  @Get()
  @McpRoute()
  all(): { reports: string[] } {
    return { reports: ['q1'] };
  }

  @Get('secret')
  @McpRoute({ servers: ['admin'] })
  secret(): { secret: boolean } {
    return { secret: true };
  }
}

@Module({ controllers: [ReportsController] })
class ReportsModule {}

@Module({})
class AdminModule {}

describe('route tools on several servers', () => {
  it('go to the servers that include their module, or that they name', async () => {
    @Module({
      imports: [
        ReportsModule,
        McpModule.forRoot({ name: 'public', version: '1.0.0', path: 'public', include: [ReportsModule] }),
        AdminModule,
        McpModule.forRoot({ name: 'admin', version: '1.0.0', path: 'admin', include: [AdminModule] }),
      ],
    })
    class ServersModule {}
    const app = await mcpApp(ServersModule);
    try {
      const list = async (server: string) =>
        (await (await createMcpTestClient(app, { server })).listTools()).map((tool) => tool.name).sort();
      expect(await list('public')).toEqual(['reports_all']);
      expect(await list('admin')).toEqual(['reports_secret']);
      const admin = await createMcpTestClient(app, { server: 'admin' });
      expect(await admin.callTool('reports_secret', {})).toMatchObject({ structuredContent: { secret: true } });
    } finally {
      await app.close();
    }
  });
});

describe('route tools at startup', () => {
  it('refuses @McpRoute() on a method without an HTTP verb, naming it', async () => {
    @Controller('bad')
    class BadController {
      @McpRoute()
      helper(): string {
        return 'no verb';
      }
    }
    const app = await createE2eApp({
      imports: [McpModule.forRoot({ name: 'bad-routes', version: '1.0.0' })],
      controllers: [BadController],
    });
    await expect(app.init()).rejects.toThrow(McpConfigurationError);
    await expect(app.init()).rejects.toThrow(/BadController\.helper/);
    await app.close();
  });

  it('refuses two route tools of one name', async () => {
    @Controller('twice')
    @McpRoutes()
    class TwiceController {
      @Get('a')
      @McpRoute({ name: 'same' })
      a(): string {
        return 'a';
      }

      @Get('b')
      @McpRoute({ name: 'same' })
      b(): string {
        return 'b';
      }
    }
    const app = await createE2eApp({
      imports: [McpModule.forRoot({ name: 'twice-routes', version: '1.0.0' })],
      controllers: [TwiceController],
    });
    await expect(app.init()).rejects.toThrow(/same/);
    await app.close();
  });
});
