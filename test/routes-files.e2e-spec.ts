/**
 * Route tools that answer files, and routes that ask the person first, on Express and Fastify
 * with both official clients (v1 in the legacy era, v2 pinned to the modern era).
 *
 * Files: a `StreamableFile` PDF download arrives as an embedded resource whose blob decodes to
 * the exact bytes (its `uri` the route's URL, its name from `Content-Disposition`), so does a
 * file sent from disk (`res.sendFile` on Express, a read stream on Fastify), a PNG as
 * image content, a `text/plain` body as text only; a file over `routes.maxInlineBytes` from a
 * GET route is a `resource_link` the client can fetch, from any other route a -32603; a JSON body
 * over `maxResponseBytes` is still a -32603.
 *
 * Confirmation: a DELETE under `routes.confirmDestructive`, and a POST with its own
 * `confirm: '…'` question, run once after an accepted "yes", never after "no", a decline, or for
 * a client without elicitation; `confirm: false` runs without asking.
 */
import {
  Client as V2Client,
  type ElicitRequest as V2ElicitRequest,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Module,
  Param,
  ParseIntPipe,
  Post,
  Res,
  StreamableFile,
} from '@nestjs/common';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { McpModule, McpRoute, McpRoutes } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { MODERN_REVISION } from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const MAX_INLINE = 1024;
const MAX_RESPONSE = 4096;

/** PDF-like bytes: a header, then every byte value (no valid UTF-8 survives a text round trip). */
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.7\n', 'latin1'),
  Buffer.from(Array.from({ length: 256 }, (_, index) => index)),
  Buffer.from('\n%%EOF\n', 'latin1'),
]);
/** A PNG signature and an IHDR start: enough to be image bytes. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff]);
/** Over the inline bound, under the response bound. */
const BIG = Buffer.alloc(MAX_INLINE * 3, 0xab);
/** A file on disk for `res.sendFile`. */
const SHEET_PATH = join(mkdtempSync(join(tmpdir(), 'routes-files-')), 'sheet.pdf');
writeFileSync(SHEET_PATH, PDF);

@Controller('files')
@McpRoutes()
class FilesController {
  @Get('reports/:id')
  report(@Param('id', ParseIntPipe) id: number): StreamableFile {
    return new StreamableFile(PDF, { type: 'application/pdf', disposition: `attachment; filename="report-${id}.pdf"` });
  }

  @Get('logo')
  logo(): StreamableFile {
    return new StreamableFile(PNG, { type: 'image/png' });
  }

  @Get('readme')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  readme(): string {
    return '{"looks":"like JSON","but":"is text"}';
  }

  @Get('big')
  big(): StreamableFile {
    return new StreamableFile(BIG, {
      type: 'application/octet-stream',
      disposition: "attachment; filename*=UTF-8''gro%C3%9F.bin",
    });
  }

  /** Chunked (no Content-Length): the reader finds out while reading. */
  @Get('stream')
  stream(): StreamableFile {
    const chunks = Array.from({ length: 8 }, () => Buffer.alloc(MAX_INLINE / 2, 0xcd));
    return new StreamableFile(Readable.from(chunks), { type: 'application/zip' });
  }

  @Post('exports')
  @HttpCode(200)
  exportSmall(): StreamableFile {
    return new StreamableFile(PDF.subarray(0, 64), { type: 'application/zip' });
  }

  @Post('exports/big')
  @HttpCode(200)
  exportBig(): StreamableFile {
    return new StreamableFile(BIG, { type: 'application/zip' });
  }

  /** From disk: Express's `res.sendFile` (its type from the extension), Fastify's reply of a read stream. */
  @Get('sheet')
  sheet(@Res() res: { sendFile?(path: string): void; type(type: string): { send(body: unknown): void } }): void {
    if (res.sendFile !== undefined) {
      res.sendFile(SHEET_PATH);
    } else {
      res.type('application/pdf').send(createReadStream(SHEET_PATH));
    }
  }

  @Get('huge-json')
  hugeJson(): { text: string } {
    return { text: 'x'.repeat(MAX_RESPONSE) };
  }
}

@Controller('items')
class ItemsController {
  static removed = 0;
  static archived = 0;
  static cleared = 0;

  @Delete(':id')
  @McpRoute()
  remove(@Param('id', ParseIntPipe) id: number): { removed: number } {
    ItemsController.removed += 1;
    return { removed: id };
  }

  @Post(':id/archive')
  @HttpCode(200)
  @McpRoute({ confirm: 'Archive this item?' })
  archive(@Param('id', ParseIntPipe) id: number): { archived: number } {
    ItemsController.archived += 1;
    return { archived: id };
  }

  @Delete()
  @McpRoute({ name: 'items_clear', confirm: false })
  clear(): { cleared: true } {
    ItemsController.cleared += 1;
    return { cleared: true };
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'routes-files',
      version: '1.0.0',
      routes: { maxInlineBytes: MAX_INLINE, maxResponseBytes: MAX_RESPONSE, confirmDestructive: true },
    }),
  ],
  controllers: [FilesController, ItemsController],
})
class FilesModule {}

type Content = Array<Record<string, any>>;
type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

interface Connected {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<Record<string, any>>;
  close(): Promise<void>;
  /** The elicitation messages this client was asked. */
  readonly asked: string[];
  /** What the person answers next. */
  answer: Answer;
}

/** A client of the era; with `elicitation`, it answers each question with `answer`. */
async function connect(era: 'v1' | 'v2', url: URL, elicitation: boolean): Promise<Connected> {
  const asked: string[] = [];
  const state = { answer: { action: 'accept', content: { confirm: true } } as Answer };
  const respond = (message: string): ElicitResult => {
    asked.push(message);
    return state.answer as ElicitResult;
  };
  let client: { callTool: Connected['callTool']; close(): Promise<void> };
  if (era === 'v1') {
    const v1 = new V1Client(
      { name: 'files-v1', version: '1.0.0' },
      { capabilities: elicitation ? { elicitation: {} } : {} },
    );
    if (elicitation) {
      v1.setRequestHandler(ElicitRequestSchema, (request) => respond(String(request.params.message)));
    }
    await v1.connect(new V1Transport(url));
    client = v1;
  } else {
    const v2 = new V2Client(
      { name: 'files-v2', version: '2.0.0' },
      {
        capabilities: elicitation ? { elicitation: { form: {} } } : {},
        versionNegotiation: { mode: { pin: MODERN_REVISION } },
      },
    );
    if (elicitation) {
      v2.setRequestHandler('elicitation/create', (request: V2ElicitRequest) =>
        respond(String((request.params as { message: string }).message)),
      );
    }
    await v2.connect(new V2Transport(url));
    client = v2;
  }
  return {
    callTool: (params) => client.callTool(params),
    close: () => client.close(),
    asked,
    get answer() {
      return state.answer;
    },
    set answer(next: Answer) {
      state.answer = next;
    },
  };
}

function textOf(content: Content): string {
  return content
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('\n');
}

afterAll(() => {
  rmSync(dirname(SHEET_PATH), { recursive: true, force: true });
});

describe.each(PLATFORMS)('route tools answering files and asking first (%s)', (platform) => {
  let app: HttpApp;

  beforeAll(async () => {
    app = await startHttpApp(FilesModule, { platform });
  });

  afterAll(async () => {
    await app.close();
  });

  describe.each(['v1', 'v2'] as const)('with the %s client', (era) => {
    let client: Connected;

    beforeAll(async () => {
      client = await connect(era, app.url, true);
    });

    afterAll(async () => {
      await client.close();
    });

    it('gives a StreamableFile download as an embedded resource with the exact bytes', async () => {
      const result = await client.callTool({ name: 'files_report', arguments: { id: 7 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toBeUndefined();
      const content = result.content as Content;
      const embedded = content.find((block) => block.type === 'resource');
      expect(embedded?.resource).toEqual({
        uri: `${app.baseUrl}/files/reports/7`,
        mimeType: 'application/pdf',
        blob: expect.any(String),
      });
      expect(Buffer.from(String(embedded?.resource.blob), 'base64').equals(PDF)).toBe(true);
      expect(embedded?._meta).toEqual({ 'nest-mcp/fileName': 'report-7.pdf' });
      expect(textOf(content)).toBe(`File report-7.pdf (application/pdf, ${PDF.length} bytes)`);
    });

    it('gives a file sent from disk (res.sendFile on Express) as an embedded resource', async () => {
      const result = await client.callTool({ name: 'files_sheet', arguments: {} });
      const embedded = (result.content as Content).find((block) => block.type === 'resource');
      expect(embedded?.resource).toMatchObject({ uri: `${app.baseUrl}/files/sheet`, mimeType: 'application/pdf' });
      expect(Buffer.from(String(embedded?.resource.blob), 'base64').equals(PDF)).toBe(true);
    });

    it('gives an image as image content', async () => {
      const result = await client.callTool({ name: 'files_logo', arguments: {} });
      const image = (result.content as Content).find((block) => block.type === 'image');
      expect(image).toMatchObject({ mimeType: 'image/png' });
      expect(Buffer.from(String(image?.data), 'base64').equals(PNG)).toBe(true);
    });

    it('gives a text/plain body as text only, never as structured content', async () => {
      const result = await client.callTool({ name: 'files_readme', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: '{"looks":"like JSON","but":"is text"}' }]);
      expect(result.structuredContent).toBeUndefined();
    });

    it('links a GET route file over maxInlineBytes, and the link serves the file', async () => {
      const result = await client.callTool({ name: 'files_big', arguments: {} });
      expect(result.isError).toBeFalsy();
      const content = result.content as Content;
      expect(content.find((block) => block.type === 'resource')).toBeUndefined();
      const link = content.find((block) => block.type === 'resource_link');
      expect(link).toMatchObject({
        uri: `${app.baseUrl}/files/big`,
        name: 'groß.bin',
        mimeType: 'application/octet-stream',
        size: BIG.length,
      });
      const fetched = await fetch(String(link?.uri));
      expect(Buffer.from(await fetched.arrayBuffer()).equals(BIG)).toBe(true);
    });

    it('links a chunked file once it has read past the inline bound', async () => {
      const result = await client.callTool({ name: 'files_stream', arguments: {} });
      const link = (result.content as Content).find((block) => block.type === 'resource_link');
      expect(link).toMatchObject({ uri: `${app.baseUrl}/files/stream`, name: 'stream', mimeType: 'application/zip' });
      expect(link?.size).toBeUndefined();
    });

    it('names the file of a POST route with a route: URI, and fails one over the inline bound', async () => {
      const small = await client.callTool({ name: 'files_export_small', arguments: {} });
      const embedded = (small.content as Content).find((block) => block.type === 'resource');
      expect(embedded?.resource).toMatchObject({ uri: 'route:/files/exports', mimeType: 'application/zip' });
      expect(Buffer.from(String(embedded?.resource.blob), 'base64').equals(PDF.subarray(0, 64))).toBe(true);
      await expect(client.callTool({ name: 'files_export_big', arguments: {} })).rejects.toMatchObject({
        code: -32603,
      });
    });

    it('still fails a JSON body over maxResponseBytes with -32603', async () => {
      await expect(client.callTool({ name: 'files_huge_json', arguments: {} })).rejects.toMatchObject({
        code: -32603,
      });
    });

    it('runs a destructive route once the person says yes, asking with the route and its arguments', async () => {
      const before = ItemsController.removed;
      const asked = client.asked.length;
      client.answer = { action: 'accept', content: { confirm: true } };
      const result = await client.callTool({ name: 'items_remove', arguments: { id: 3 } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ removed: 3 });
      expect(ItemsController.removed - before).toBe(1);
      expect(client.asked.slice(asked)).toEqual([
        'Allow items_remove to run?\nDELETE /items/3 (tool items_remove)\nArguments: {"id":3}',
      ]);
    });

    it('asks with the route’s own question, and does not run it on a decline or a "no"', async () => {
      const before = ItemsController.archived;
      const asked = client.asked.length;
      client.answer = { action: 'decline' };
      const declined = await client.callTool({ name: 'items_archive', arguments: { id: 5 } });
      expect(declined).toMatchObject({ isError: true });
      expect(textOf(declined.content as Content)).toBe(
        'Not run: the person declined when asked to confirm POST /items/5/archive.',
      );
      client.answer = { action: 'accept', content: { confirm: false } };
      const no = await client.callTool({ name: 'items_archive', arguments: { id: 5 } });
      expect(no).toMatchObject({ isError: true });
      expect(ItemsController.archived).toBe(before);
      expect(client.asked.slice(asked)).toHaveLength(2);
      expect(client.asked[asked]).toMatch(/^Archive this item\?\nPOST \/items\/5\/archive/);
    });

    it('runs a destructive route with confirm: false without asking', async () => {
      const before = ItemsController.cleared;
      const asked = client.asked.length;
      const result = await client.callTool({ name: 'items_clear', arguments: {} });
      expect(result.structuredContent).toEqual({ cleared: true });
      expect(ItemsController.cleared - before).toBe(1);
      expect(client.asked.length).toBe(asked);
    });

    it('refuses, without running the route, for a client that cannot ask', async () => {
      const before = ItemsController.removed;
      const mute = await connect(era, app.url, false);
      try {
        const result = await mute.callTool({ name: 'items_remove', arguments: { id: 4 } });
        expect(result.isError).toBe(true);
        expect(textOf(result.content as Content)).toBe(
          "Not run: DELETE /items/4 needs the person's confirmation, and this client cannot ask for it " +
            '(the client did not declare elicitation).',
        );
      } finally {
        await mute.close();
      }
      expect(ItemsController.removed).toBe(before);
    });
  });
});
