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
import { McpModule, McpPrompt, McpResource, McpResourceTemplate, McpScopes, McpTool } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { exchange, modernHeaders, modernRequest, toolText } from './fixtures/raw-rpc';
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
      'MCP server logs 1.2.3 at /api/v1/mcp (Streamable HTTP, 2024-11-05 to 2026-07-28): 3 tools, 1 resource, 1 resource template, 1 prompt',
      'MCP server logs 1.2.3 at /api/v1/rpc (simple POST, 2024-11-05 to 2026-07-28): 3 tools, 1 resource, 1 resource template, 1 prompt',
      'MCP server logs 1.2.3 at /api/v1/sse + /api/v1/messages (2024-11-05 HTTP+SSE pair, 2024-11-05 to 2025-11-25): 3 tools, 1 resource, 1 resource template, 1 prompt',
    ]);
  });

  it('logs the names at debug level', () => {
    const debug = logger.lines.filter((line) => line.context === 'McpModule' && line.level === 'debug');
    expect(debug.map((line) => line.message)).toEqual([
      'Tools: admin, boom, guarded_boom',
      'Resources: logs://readme',
      'Resource templates: logs://entries/{id}',
      'Prompts: summarise',
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
