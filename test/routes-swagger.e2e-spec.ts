/**
 * Route tools from `@nestjs/swagger` metadata, and routes selected by the server's options
 * (`routes.expose`), on Express and Fastify with both client eras: a CRUD controller with
 * class-validator DTOs and swagger metadata (`@ApiOperation`, `@ApiProperty`, `@ApiParam`,
 * `@ApiQuery`, `@ApiBody`, `@ApiOkResponse`...), whose `tools/list` is checked whole against the
 * expected names, descriptions, input and output schemas and annotations; calls whose
 * `structuredContent` meets the output schema; a route whose response breaks its declared type;
 * selection by controllers, tags and paths, on one server and on several; startup errors.
 */
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Module,
  NotFoundException,
  Param,
  ParseIntPipe,
  Patch,
  Post,
  Query,
  Req,
  ValidationPipe,
  VersioningType,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiExcludeEndpoint,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { IsEnum, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { McpConfigurationError, McpModule, McpRoute } from 'nest-mcp';
import { createMcpTestClient } from 'nest-mcp/testing';
import { type HttpApp, type HttpPlatform, createE2eApp, startHttpApp } from './fixtures/http-app';
import { mcpApp } from './support/mcp-app';
import { connectEra, type EraClient } from './support/era-client';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];

enum NoteStatus {
  Draft = 'draft',
  Published = 'published',
}

/** Described by swagger alone: no class-validator decorator. */
class LabelDto {
  @ApiProperty({ description: 'Label text', example: 'urgent' })
  text!: string;

  @ApiPropertyOptional({ description: 'CSS colour' })
  colour?: string;
}

/** The response: swagger alone, with a nested DTO and an array. */
class NoteDto {
  @ApiProperty({ description: 'Note id', example: 1 })
  id!: number;

  @ApiProperty({ description: 'Title' })
  title!: string;

  @ApiProperty({ enum: NoteStatus, description: 'Workflow state' })
  status!: NoteStatus;

  @ApiProperty({ type: [String], description: 'Tags' })
  tags!: string[];

  @ApiPropertyOptional({ type: () => LabelDto })
  label?: LabelDto;
}

class NoteListDto {
  @ApiProperty({ type: [NoteDto] })
  notes!: NoteDto[];
}

/** The input: class-validator for the pipe, swagger for the words. */
class CreateNoteDto {
  @ApiProperty({ description: 'The title, at most 100 characters', example: 'Groceries', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  title!: string;

  @ApiPropertyOptional({ enum: NoteStatus, default: NoteStatus.Draft, description: 'Initial state' })
  @IsOptional()
  @IsEnum(NoteStatus)
  status?: NoteStatus;

  @ApiPropertyOptional({ type: [String], description: 'Tags' })
  @IsOptional()
  @IsString({ each: true })
  tags?: string[];
}

@ApiTags('notes')
@Controller({ path: 'notes', version: '1' })
class NotesController {
  private readonly notes = new Map<number, NoteDto>([
    [1, { id: 1, title: 'First', status: NoteStatus.Published, tags: ['work'], label: { text: 'pinned' } }],
  ]);
  private nextId = 2;

  @Get()
  @ApiOperation({ operationId: 'listNotes', summary: 'List notes', description: 'Newest last; filter by state.' })
  @ApiQuery({ name: 'status', enum: NoteStatus, required: false, description: 'Only notes in this state' })
  @ApiQuery({ name: 'limit', type: Number, required: false, description: 'At most this many' })
  @ApiOkResponse({ type: NoteListDto })
  list(@Query('status') status: NoteStatus | undefined, @Req() req: { query: Record<string, string> }): NoteListDto {
    const notes = [...this.notes.values()].filter((note) => status === undefined || note.status === status);
    const limit = req.query.limit === undefined ? notes.length : Number(req.query.limit);
    return { notes: notes.slice(0, limit) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One note by id' })
  @ApiParam({ name: 'id', description: 'The note id' })
  @ApiOkResponse({ type: NoteDto })
  @ApiNotFoundResponse({ description: 'No such note' })
  findOne(@Param('id', ParseIntPipe) id: number): NoteDto {
    const note = this.notes.get(id);
    if (note === undefined) {
      throw new NotFoundException(`Note ${id} not found`);
    }
    return note;
  }

  @Post()
  @ApiOperation({ operationId: 'createNote', summary: 'Create a note' })
  @ApiCreatedResponse({ type: NoteDto })
  create(@Body() dto: CreateNoteDto): NoteDto {
    const note: NoteDto = {
      id: this.nextId++,
      title: dto.title,
      status: dto.status ?? NoteStatus.Draft,
      tags: dto.tags ?? [],
    };
    this.notes.set(note.id, note);
    return note;
  }

  @Patch(':id/status')
  @ApiOperation({ operationId: 'setNoteStatus', summary: 'Change the state of a note' })
  @ApiBody({
    description: 'The new state',
    schema: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['draft', 'published'], nullable: false } },
      required: ['status'],
    },
  })
  @ApiOkResponse({ type: NoteDto })
  setStatus(@Param('id', ParseIntPipe) id: number, @Body() body: Record<string, unknown>): NoteDto {
    const note = this.findOne(id);
    note.status = body.status as NoteStatus;
    return note;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'removeNote', summary: 'Delete a note' })
  @McpRoute({ name: 'delete_note', annotations: { openWorldHint: false } })
  remove(@Param('id', ParseIntPipe) id: number): void {
    this.notes.delete(id);
  }

  /** Declares a NoteDto and answers something else. */
  @Get('broken/one')
  @ApiOkResponse({ type: NoteDto })
  @McpRoute({ description: 'Answers against its declaration' })
  broken(): Record<string, unknown> {
    return { id: 'seven', title: 'Wrong' };
  }

  /** An array: no output schema. */
  @Get('all/ids')
  @ApiOkResponse({ type: [Number] })
  ids(): number[] {
    return [...this.notes.keys()];
  }
}

@ApiTags('reports')
@Controller('reports')
class ReportsController {
  @Get('count')
  count(): { count: number } {
    return { count: 1 };
  }

  /** Left out of the OpenAPI document: no selection by the options may show it. */
  @Get('raw')
  @ApiExcludeEndpoint()
  raw(): { raw: boolean } {
    return { raw: true };
  }
}

@Controller('health')
class HealthController {
  @Get('live')
  live(): { live: boolean } {
    return { live: true };
  }
}

@ApiTags('internal')
@Controller('admin')
class AdminController {
  @Get('stats')
  stats(): { stats: number } {
    return { stats: 1 };
  }
}

@Module({ controllers: [NotesController] })
class NotesModule {}

@Module({ controllers: [ReportsController, HealthController, AdminController] })
class OpsModule {}

const NOTE_PROPERTIES = {
  id: { type: 'number', description: 'Note id', examples: [1] },
  title: { type: 'string', description: 'Title' },
  status: { type: 'string', enum: ['draft', 'published'], description: 'Workflow state' },
  tags: { type: 'array', items: { type: 'string' }, description: 'Tags' },
  label: { $ref: '#/$defs/LabelDto' },
};
const LABEL_DEF = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'Label text', examples: ['urgent'] },
    colour: { type: 'string', description: 'CSS colour' },
  },
  required: ['text'],
};
const NOTE_OUTPUT = {
  type: 'object',
  properties: NOTE_PROPERTIES,
  required: ['id', 'title', 'status', 'tags'],
  $defs: { LabelDto: LABEL_DEF },
};

/** What `tools/list` must say, tool by tool. */
const EXPECTED_TOOLS = {
  listNotes: {
    name: 'listNotes',
    description: 'List notes\n\nNewest last; filter by state.',
    inputSchema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['draft', 'published'], description: 'Only notes in this state' },
        limit: { type: 'number', description: 'At most this many' },
      },
    },
    outputSchema: {
      type: 'object',
      properties: { notes: { type: 'array', items: { $ref: '#/$defs/NoteDto' } } },
      required: ['notes'],
      $defs: {
        NoteDto: { type: 'object', properties: NOTE_PROPERTIES, required: ['id', 'title', 'status', 'tags'] },
        LabelDto: LABEL_DEF,
      },
    },
    annotations: { readOnlyHint: true },
  },
  notes_find_one: {
    name: 'notes_find_one',
    description: 'One note by id',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer', description: 'The note id' } },
      required: ['id'],
    },
    outputSchema: NOTE_OUTPUT,
    annotations: { readOnlyHint: true },
  },
  createNote: {
    name: 'createNote',
    description: 'Create a note',
    inputSchema: {
      type: 'object',
      properties: {
        body: {
          type: 'object',
          properties: {
            title: { type: 'string', description: 'The title, at most 100 characters', examples: ['Groceries'] },
            status: {
              type: 'string',
              enum: ['draft', 'published'],
              description: 'Initial state',
              default: 'draft',
            },
            tags: { type: 'array', items: { type: 'string' }, description: 'Tags' },
          },
          required: ['title'],
        },
      },
      required: ['body'],
    },
    outputSchema: NOTE_OUTPUT,
    annotations: { readOnlyHint: false },
  },
  setNoteStatus: {
    name: 'setNoteStatus',
    description: 'Change the state of a note',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        body: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['draft', 'published'] } },
          required: ['status'],
          description: 'The new state',
        },
      },
      required: ['id', 'body'],
    },
    outputSchema: NOTE_OUTPUT,
    annotations: { readOnlyHint: false },
  },
  delete_note: {
    name: 'delete_note',
    description: 'Delete a note',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
    annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: false },
  },
  notes_broken: {
    name: 'notes_broken',
    description: 'Answers against its declaration',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: NOTE_OUTPUT,
    annotations: { readOnlyHint: true },
  },
  notes_ids: {
    name: 'notes_ids',
    description: 'GET /api/v1/notes/all/ids',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  reports_count: {
    name: 'reports_count',
    description: 'GET /api/reports/count',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
  health_live: {
    name: 'health_live',
    description: 'GET /api/health/live',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
};

const MCP = McpModule.forRoot({
  name: 'swagger-routes',
  version: '1.0.0',
  routes: {
    expose: { controllers: [NotesController], tags: ['reports'], paths: ['/api/health/**'] },
  },
});

async function startApp(platform: HttpPlatform): Promise<HttpApp> {
  @Module({ imports: [MCP, NotesModule, OpsModule] })
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

function textsOf(result: Record<string, unknown>): string[] {
  return (result.content as Array<{ text: string }>).map((item) => item.text);
}

describe.each(PLATFORMS)('route tools from swagger metadata (%s)', (platform) => {
  let app: HttpApp;

  beforeAll(async () => {
    app = await startApp(platform);
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

    it('lists the selected routes with the names, descriptions and schemas swagger gives', async () => {
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(
        tools.map(({ name, description, inputSchema, outputSchema, annotations }) => [
          name,
          { name, description, inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }), annotations },
        ]),
      );
      expect(byName).toEqual(EXPECTED_TOOLS);
    });

    it('answers with structuredContent that meets the declared output schema', async () => {
      const list = await client.callTool({ name: 'listNotes', arguments: { status: 'published', limit: 1 } });
      expect(list.isError).toBeFalsy();
      expect(list.structuredContent).toEqual({
        notes: [{ id: 1, title: 'First', status: 'published', tags: ['work'], label: { text: 'pinned' } }],
      });
      const created = await client.callTool({
        name: 'createNote',
        arguments: { body: { title: `From ${era}`, tags: ['x'] } },
      });
      expect(created.isError).toBeFalsy();
      const id = (created.structuredContent as { id: number }).id;
      expect(created.structuredContent).toEqual({ id, title: `From ${era}`, status: 'draft', tags: ['x'] });
      const changed = await client.callTool({
        name: 'setNoteStatus',
        arguments: { id, body: { status: 'published' } },
      });
      expect(changed.structuredContent).toMatchObject({ id, status: 'published' });
      expect(await client.callTool({ name: 'delete_note', arguments: { id } })).toMatchObject({
        content: [{ type: 'text', text: 'HTTP 204' }],
      });
    });

    it("passes the route's own errors as they are, and refuses a body the outputSchema does not describe", async () => {
      const missing = await client.callTool({ name: 'notes_find_one', arguments: { id: 999 } });
      expect(missing).toMatchObject({ isError: true, content: [{ text: 'HTTP 404: Note 999 not found' }] });
      const invalid = await client.callTool({ name: 'createNote', arguments: { body: { title: '' } } });
      expect(invalid).toMatchObject({ isError: true, content: [{ text: 'HTTP 400: title should not be empty' }] });
      const broken = await client.callTool({ name: 'notes_broken', arguments: {} });
      expect(broken.isError).toBe(true);
      expect(broken.structuredContent).toBeUndefined();
      const [why, body] = textsOf(broken);
      expect(why).toMatch(/^HTTP 200: the route ran and answered, but its response does not match its outputSchema \(/);
      expect(why).toContain('/id');
      expect(JSON.parse(body)).toEqual({ id: 'seven', title: 'Wrong' });
    });

    it('answers an array route without an output schema, as text', async () => {
      const ids = await client.callTool({ name: 'notes_ids', arguments: {} });
      expect(ids.isError).toBeFalsy();
      expect(JSON.parse(textsOf(ids)[0])).toEqual(expect.arrayContaining([1]));
    });
  });

  it('leaves the routes the options do not select, and plain HTTP, alone', async () => {
    const client = await connectEra('v2', app.url);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).not.toContain('admin_stats');
      expect(names).toContain('reports_count');
      expect(names).not.toContain('reports_raw');
    } finally {
      await client.close();
    }
    expect((await fetch(`${app.baseUrl}/api/admin/stats`)).status).toBe(200);
    expect(await (await fetch(`${app.baseUrl}/api/v1/notes/1`)).json()).toMatchObject({ id: 1, title: 'First' });
  });
});

describe('route selection on several servers', () => {
  it('selects among the routes of the modules each server takes, and each gets its own', async () => {
    @Module({
      imports: [
        NotesModule,
        OpsModule,
        McpModule.forRoot({
          name: 'notes',
          version: '1.0.0',
          path: 'notes-mcp',
          include: [NotesModule],
          routes: { expose: { paths: ['/**'] } },
        }),
        McpModule.forRoot({
          name: 'ops',
          version: '1.0.0',
          path: 'ops-mcp',
          include: [OpsModule],
          routes: { expose: { tags: ['reports', 'notes'], controllers: [HealthController] } },
        }),
      ],
    })
    class ServersModule {}
    const app = await mcpApp(ServersModule);
    try {
      const list = async (server: string) =>
        (await (await createMcpTestClient(app, { server })).listTools()).map((tool) => tool.name).sort();
      // `/**` on the notes server stops at its include; the `notes` tag does not cross into it from ops.
      expect(await list('notes')).toEqual([
        'createNote',
        'delete_note',
        'listNotes',
        'notes_broken',
        'notes_find_one',
        'notes_ids',
        'setNoteStatus',
      ]);
      expect(await list('ops')).toEqual(['health_live', 'reports_count']);
      const ops = await createMcpTestClient(app, { server: 'ops' });
      expect(await ops.callTool('reports_count', {})).toMatchObject({ structuredContent: { count: 1 } });
    } finally {
      await app?.close();
    }
  });
});

describe('route selection and swagger metadata at startup', () => {
  async function startupError(module: Parameters<typeof createE2eApp>[0]): Promise<unknown> {
    let app: Awaited<ReturnType<typeof createE2eApp>> | undefined;
    try {
      // A bad option stops the application while its module compiles, or at init.
      app = await createE2eApp(module);
      await app.init();
      return undefined;
    } catch (error) {
      return error;
    } finally {
      await app?.close();
    }
  }

  it('refuses an operationId that is not a tool name, naming the route', async () => {
    @Controller('odd')
    class OddController {
      @Get()
      @ApiOperation({ operationId: 'list odd things' })
      @McpRoute()
      list(): { ok: boolean } {
        return { ok: true };
      }
    }
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'odd', version: '1.0.0' })],
      controllers: [OddController],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toMatch(
      /^OddController\.list: the operationId "list odd things" .*@McpRoute\(\{ name \}\)/,
    );
  });

  it('refuses a controller in expose.controllers that another server includes', async () => {
    const error = await startupError({
      imports: [
        NotesModule,
        OpsModule,
        McpModule.forRoot({ name: 'a', version: '1.0.0', path: 'a', include: [NotesModule] }),
        McpModule.forRoot({
          name: 'b',
          version: '1.0.0',
          path: 'b',
          include: [OpsModule],
          routes: { expose: { controllers: [NotesController] } },
        }),
      ],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain('"routes.expose.controllers"');
    expect((error as Error).message).toContain('of server "b" names NotesController, in NotesModule');
  });

  it('refuses a controller in expose.controllers that the application does not have', async () => {
    @Controller('nowhere')
    class NowhereController {}
    const error = await startupError({
      imports: [
        McpModule.forRoot({ name: 'c', version: '1.0.0', routes: { expose: { controllers: [NowhereController] } } }),
      ],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toContain('names NowhereController');
  });

  it('refuses a path pattern with a partial wildcard', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'd', version: '1.0.0', routes: { expose: { paths: ['/api/note*'] } } })],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect((error as Error).message).toMatch(/routes\.expose\.paths.*"note\*"/);
  });
});
