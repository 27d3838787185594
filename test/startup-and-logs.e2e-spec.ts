/**
 * What an operator reads: one startup line per endpoint with its full path (global prefix and
 * version included) and what it serves, the names at debug level; one line per refusal with its
 * reason (401, 403 scope, parse errors); an unexpected tool error logged once, with the tool, the
 * request id, the caller and the stack, whether or not the Nest pipeline ran around the tool.
 */
import {
  type CallHandler,
  type ExecutionContext,
  type INestApplication,
  Injectable,
  Module,
  type NestInterceptor,
  UseInterceptors,
  VersioningType,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { McpModule, McpPrompt, McpResource, McpResourceTemplate, McpScopes, McpTool, McpArgs } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { exchange, legacyRequest, modernHeaders, modernRequest, toolText } from './fixtures/raw-rpc';
import { RecordingLogger } from './fixtures/recording-logger';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const TOKEN = 'tok-alice';

@Injectable()
class PassThroughInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

@Injectable()
class LoggedTools {
  @McpTool({ description: 'Fails with an unexpected error, with nothing of the pipeline around it' })
  boom(): string {
    throw new Error('kaboom without the pipeline');
  }

  @McpTool({ description: 'Fails with an unexpected error inside the Nest pipeline' })
  @UseInterceptors(PassThroughInterceptor)
  guarded_boom(): string {
    throw new Error('kaboom inside the pipeline');
  }

  @McpTool({
    description: 'Fails with an error that quotes its argument',
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  })
  quoting_boom(@McpArgs('text') text: string): string {
    throw new Error(`no entry ${text}`);
  }

  @McpTool({ description: 'Needs the admin scope' })
  @McpScopes('admin')
  admin(): string {
    return 'admin';
  }

  @McpResource({ uri: 'logs://readme', mimeType: 'text/plain' })
  readme(): string {
    return 'readme';
  }

  @McpResourceTemplate({ uriTemplate: 'logs://entries/{id}' })
  entry(): string {
    return 'entry';
  }

  // Opted out of the refusal of unsafe values: its URIs with a line break reach the handler, and so its failure line.
  @McpResourceTemplate({ uriTemplate: 'logs://broken/{id}', allowUnsafeValues: true })
  broken(): string {
    throw new Error('the broken entries cannot be read');
  }

  @McpPrompt({ description: 'Summarise the logs' })
  summarise(): string {
    return 'Summarise the logs.';
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      name: 'logs',
      version: '1.2.3',
      auth: { bearer: { tokens: { [TOKEN]: { id: 'alice', scopes: ['read'] } } } },
      simpleHttpPath: 'rpc',
      ssePath: 'sse',
      sseMessagesPath: 'messages',
    }),
  ],
  providers: [LoggedTools, PassThroughInterceptor],
})
class LogsModule {}

describe.each(PLATFORMS)('startup lines and log lines (%s)', (platform) => {
  let server: HttpApp;
  let logger: RecordingLogger;
  const mcp = (): URL => new URL('/api/v1/mcp', server.baseUrl);
  const call = (name: string, id: number) =>
    exchange(mcp(), {
      body: modernRequest('tools/call', { name, arguments: {} }, id),
      headers: { ...modernHeaders('tools/call', name), authorization: `Bearer ${TOKEN}` },
    });

  beforeAll(async () => {
    logger = new RecordingLogger();
    server = await startHttpApp(LogsModule, {
      platform,
      globalPrefix: 'api',
      configure: (app: INestApplication) => {
        app.useLogger(logger);
        app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
      },
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('logs one line per endpoint with its full path and what it serves', () => {
    const lines = logger.lines.filter((line) => line.context === 'McpModule' && line.level === 'log');
    expect(lines.map((line) => line.message)).toEqual([
      'MCP server logs 1.2.3 at /api/v1/mcp (Streamable HTTP, 2024-11-05 to 2026-07-28): 4 tools, 1 resource, 2 resource templates, 1 prompt',
      'MCP server logs 1.2.3 at /api/v1/rpc (simple POST, 2024-11-05 to 2026-07-28): 4 tools, 1 resource, 2 resource templates, 1 prompt',
      'MCP server logs 1.2.3 at /api/v1/sse + /api/v1/messages (2024-11-05 HTTP+SSE pair, 2024-11-05 to 2025-11-25): 4 tools, 1 resource, 2 resource templates, 1 prompt',
    ]);
  });

  it('logs the names at debug level', () => {
    const debug = logger.lines.filter((line) => line.context === 'McpModule' && line.level === 'debug');
    expect(debug.map((line) => line.message)).toEqual([
      'Tools of server "logs": admin, boom, guarded_boom, quoting_boom',
      'Resources of server "logs": logs://readme',
      'Resource templates of server "logs": logs://broken/{id}, logs://entries/{id}',
      'Prompts of server "logs": summarise',
    ]);
  });

  it.each([
    ['boom', 'kaboom without the pipeline'],
    ['guarded_boom', 'kaboom inside the pipeline'],
  ])(
    'logs an unexpected error of %s once, with the tool, the request id, the caller and the stack',
    async (name, message) => {
      const before = logger.lines.length;
      const response = await call(name, 41);
      expect(toolText(response)).toBe('Internal tool error');
      const errors = logger.lines.slice(before).filter((line) => line.level === 'error');
      expect(errors).toEqual([
        {
          level: 'error',
          message: `tools/call ${name} failed (request 41, principal alice): ${message}`,
          context: 'McpEngine',
          params: [expect.stringContaining(`Error: ${message}\n    at `), 'McpEngine'],
        },
      ]);
    },
  );

  it('logs a request without credentials (401) at debug level, with the reason', async () => {
    const before = logger.lines.length;
    const response = await exchange(mcp(), {
      body: modernRequest('tools/call', { name: 'boom', arguments: {} }),
      headers: modernHeaders('tools/call', 'boom'),
    });
    expect(response.status).toBe(401);
    expect(logger.lines.slice(before).map((line) => [line.level, line.message])).toEqual([
      ['debug', 'Refused POST /api/v1/mcp from 127.0.0.1: 401 invalid_request (Authentication required)'],
    ]);
  });

  it('logs a call refused for a missing scope (403) at debug level, naming the scope', async () => {
    const before = logger.lines.length;
    const response = await call('admin', 42);
    expect(response.status).toBe(403);
    expect(logger.lines.slice(before).map((line) => [line.level, line.message])).toEqual([
      ['debug', 'Refused request 42: 403, the caller lacks the scope(s) admin'],
    ]);
  });

  describe('client-supplied values with a line break in them (a forged log line)', () => {
    const FORGED = '\n[Nest] 1  - 01/01/2026, 00:00:00   ERROR [McpEngine] FAKE';
    /** No raw line break in a message, and none in a trace but between stack frames. */
    const expectNoForgedLine = (lines: typeof logger.lines): void => {
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line.message).not.toMatch(/[\r\n\u2028\u2029\u0085]/);
        for (const param of line.params) {
          if (typeof param === 'string') {
            expect(param.split('\n').filter((part) => part.includes('FAKE') && !/^\w*Error: /.test(part))).toEqual([]);
          }
        }
      }
    };
    const post = (body: unknown, method: string, name: string) =>
      exchange(mcp(), { body, headers: { ...modernHeaders(method, name), authorization: `Bearer ${TOKEN}` } });

    it('escapes the id and the argument a failing tool quotes, in its line and in the first line of its stack', async () => {
      const before = logger.lines.length;
      const response = await post(
        modernRequest('tools/call', { name: 'quoting_boom', arguments: { text: `x${FORGED}` } }, `7${FORGED}`),
        'tools/call',
        'quoting_boom',
      );
      expect(toolText(response)).toBe('Internal tool error');
      const lines = logger.lines.slice(before);
      expectNoForgedLine(lines);
      expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
        `tools/call quoting_boom failed (request 7\\n[Nest] 1  - 01/01/2026, 00:00:00   ERROR [McpEngine] FAKE, principal alice): no entry x\\n[Nest] 1  - 01/01/2026, 00:00:00   ERROR [McpEngine] FAKE`,
      ]);
    });

    it('escapes the URI of a failing resource read (a legacy request on the simple endpoint: no Mcp-Name header)', async () => {
      const before = logger.lines.length;
      // No `/` in it: the template's simple variable matches one path segment.
      const uri = 'logs://broken/1\n[Nest] FAKE';
      const response = await exchange(new URL('/api/v1/rpc', server.baseUrl), {
        body: legacyRequest('resources/read', { uri }, 8),
        headers: { 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${TOKEN}` },
      });
      expect(response.json).toMatchObject({ id: 8, error: { code: -32603 } });
      expectNoForgedLine(logger.lines.slice(before));
    });

    it('escapes the id of a call refused for a missing scope', async () => {
      const before = logger.lines.length;
      const response = await post(
        modernRequest('tools/call', { name: 'admin', arguments: {} }, `9${FORGED}`),
        'tools/call',
        'admin',
      );
      expect(response.status).toBe(403);
      expectNoForgedLine(logger.lines.slice(before));
    });
  });

  it('logs a body that is not JSON at debug level', async () => {
    const before = logger.lines.length;
    const response = await exchange(mcp(), {
      body: '{"jsonrpc":',
      headers: { ...modernHeaders('tools/call', 'boom'), authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(400);
    expect(logger.lines.slice(before).map((line) => [line.level, line.message])).toEqual([
      ['debug', 'Refused POST /api/v1/mcp from 127.0.0.1 with 400: Parse error'],
    ]);
  });
});
