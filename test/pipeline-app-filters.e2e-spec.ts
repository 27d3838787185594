/**
 * An application's own exception filters around MCP calls, as the Nest docs write them: the
 * catch-all `AllExceptionsFilter` (`APP_FILTER`, `httpAdapter.reply`) and a `BaseExceptionFilter`
 * subclass. What they write to the response never reaches the socket: on `/mcp` (2026-07-28 and a
 * legacy session), the simple endpoint `/rpc` and the 2024-11-05 SSE pair, the call is answered in
 * JSON-RPC from the status the filter wrote, a guard's refusal is the access-denied error
 * (-32004), and one warning names each filter. Express and Fastify.
 */
import { Module } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { rpcError } from './fixtures/sdk-errors';
import { McpModule } from '../lib';
import { APP_FILTERS_APP } from './fixtures/pipeline-app-filters';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import { RecordingLogger } from './fixtures/recording-logger';
import {
  legacyRequest,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  type RpcMessage,
} from './fixtures/raw-rpc';

/** The one message of an answer, whether it came as JSON or as an SSE stream. */
function messageOf(response: RawResponse): RpcMessage {
  return (response.json as RpcMessage | undefined) ?? response.events[response.events.length - 1];
}

const ACCESS_DENIED = -32004;

@Module(APP_FILTERS_APP)
class AppFiltersModule {}

describe.each<HttpPlatform>(['express', 'fastify'])(
  "the application's exception filters on MCP calls (%s)",
  (platform) => {
    let running: HttpApp;
    let logger: RecordingLogger;
    let sseClient: Client | undefined;
    let legacyHeaders: Record<string, string>;

    const rpc = (): URL => new URL('/rpc', running.baseUrl);

    /** What one request gets on each route that answers over HTTP: /mcp in both eras and /rpc. */
    async function everyRoute(
      method: string,
      params: Record<string, unknown>,
      name: string,
    ): Promise<Record<string, RawResponse>> {
      return {
        'mcp 2026-07-28': await post(running.url, modernRequest(method, params), modernHeaders(method, name)),
        'mcp legacy session': await post(running.url, legacyRequest(method, params), legacyHeaders),
        'rpc 2026-07-28': await post(rpc(), modernRequest(method, params), modernHeaders(method, name)),
        'rpc legacy': await post(rpc(), legacyRequest(method, params)),
      };
    }

    beforeAll(async () => {
      logger = new RecordingLogger();
      running = await startHttpApp(
        {
          module: AppFiltersModule,
          imports: [
            McpModule.forRoot({
              name: 'app-filters',
              version: '1.0.0',
              simpleHttpPath: 'rpc',
              ssePath: 'sse',
              sseMessagesPath: 'messages',
            }),
          ],
        },
        { platform, configure: (app) => app.useLogger(logger) },
      );
      legacyHeaders = (await openLegacySession(running.url)).headers;
      sseClient = new Client({ name: 'app-filters-sse', version: '1.0.0' });
      await sseClient.connect(new SSEClientTransport(new URL('/sse', running.baseUrl)));
    });

    afterAll(async () => {
      await sseClient?.close();
      await running?.close();
    });

    it('a tool throwing a plain Error: the 500 the filter wrote is -32603, everywhere; the error is logged', async () => {
      const answers = await everyRoute('tools/call', { name: 'explode', arguments: {} }, 'explode');
      for (const [route, response] of Object.entries(answers)) {
        expect({ route, error: messageOf(response).error }).toEqual({
          route,
          error: { code: -32603, message: 'Internal error' },
        });
        expect(response.text).not.toContain('statusCode');
        expect(response.text).not.toContain('hunter2');
      }
      const overSse = await rpcError(sseClient!.callTool({ name: 'explode', arguments: {} }));
      expect(overSse.code).toBe(-32603);
      expect(logger.lines.some((line) => line.level === 'error' && line.message.includes('explode'))).toBe(true);
    });

    it('a resource throwing a plain Error: -32603, with nothing of the error', async () => {
      const answers = await everyRoute('resources/read', { uri: 'app://broken' }, 'app://broken');
      for (const [route, response] of Object.entries(answers)) {
        expect({ route, status: response.status, code: messageOf(response).error?.code }).toEqual({
          route,
          status: 200,
          code: -32603,
        });
        expect(response.text).not.toContain('statusCode');
        expect(response.text).not.toContain('secrets');
      }
      const overSse = await rpcError(sseClient!.readResource({ uri: 'app://broken' }));
      expect(overSse.code).toBe(-32603);
    });

    it('a tool throwing BadRequestException: the 400 the filter wrote is Invalid params with its message', async () => {
      const answers = await everyRoute('tools/call', { name: 'bad_input', arguments: {} }, 'bad_input');
      for (const [route, response] of Object.entries(answers)) {
        expect({ route, status: response.status, error: messageOf(response).error }).toEqual({
          route,
          status: route.includes('2026-07-28') ? 400 : 200,
          error: { code: -32602, message: 'quantity must be positive' },
        });
      }
      const overSse = await rpcError(sseClient!.callTool({ name: 'bad_input', arguments: {} }));
      expect(overSse.code).toBe(-32602);
      expect(overSse.message).toContain('quantity must be positive');
    });

    it("a template's NotFoundException (404 written) is the era's not-found error", async () => {
      const answers = await everyRoute('resources/read', { uri: 'app://items/7' }, 'app://items/7');
      expect(messageOf(answers['mcp 2026-07-28']).error).toEqual({ code: -32602, message: 'No item 7' });
      expect(messageOf(answers['mcp legacy session']).error).toEqual({ code: -32002, message: 'No item 7' });
    });

    describe.each([
      {
        what: 'a guard returning false',
        status: 403,
        message: 'Forbidden resource',
        tool: 'denied',
        uri: 'app://denied',
        prompt: 'denied_prompt',
      },
      {
        what: 'a guard throwing UnauthorizedException',
        status: 401,
        message: 'Sign in first',
        tool: 'members_only',
        uri: 'app://members',
        prompt: 'members_prompt',
      },
    ])('$what', ({ status, message, tool, uri, prompt }) => {
      const denial = { code: ACCESS_DENIED, message, data: { status } };

      it(`refuses a tool with -32004 and data.status ${status}, not isError`, async () => {
        const answers = await everyRoute('tools/call', { name: tool, arguments: {} }, tool);
        for (const [route, response] of Object.entries(answers)) {
          expect({ route, status: response.status, error: messageOf(response).error }).toEqual({
            route,
            status: 200,
            error: denial,
          });
        }
        const overSse = await rpcError(sseClient!.callTool({ name: tool, arguments: {} }));
        expect({ code: overSse.code, data: overSse.data }).toEqual({ code: ACCESS_DENIED, data: { status } });
      });

      it('refuses a resource and a prompt the same way', async () => {
        const read = await everyRoute('resources/read', { uri }, uri);
        const get = await everyRoute('prompts/get', { name: prompt, arguments: {} }, prompt);
        for (const [route, response] of [...Object.entries(read), ...Object.entries(get)]) {
          expect({ route, error: messageOf(response).error }).toEqual({ route, error: denial });
        }
      });
    });

    describe('a BaseExceptionFilter subclass that calls super.catch', () => {
      it("answers Invalid params with the body's messages", async () => {
        const answers = await everyRoute(
          'tools/call',
          { name: 'audited_bad_input', arguments: {} },
          'audited_bad_input',
        );
        for (const [route, response] of Object.entries(answers)) {
          expect({ route, error: messageOf(response).error }).toEqual({
            route,
            error: { code: -32602, message: 'sku must be a string; quantity must be positive' },
          });
        }
      });

      it('answers a plain Error with -32603, as the 500 it wrote says', async () => {
        const answers = await everyRoute('tools/call', { name: 'audited_explode', arguments: {} }, 'audited_explode');
        for (const [route, response] of Object.entries(answers)) {
          expect({ route, error: messageOf(response).error }).toEqual({
            route,
            error: { code: -32603, message: 'Internal error' },
          });
          expect(response.text).not.toContain('sda1');
        }
      });
    });

    it("the filter still answers the application's own routes on the real response", async () => {
      const response = await fetch(new URL('/orders/7', running.baseUrl));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ statusCode: 404, timestamp: expect.any(String), path: '/orders/7' });
    });

    it('warned once per filter class, naming it, the status it wrote and how to skip MCP calls', () => {
      const lines = logger.lines.filter((line) => line.message.includes('ExceptionsFilter'));
      expect(lines.filter((line) => line.message.startsWith('AllExceptionsFilter '))).toEqual([
        expect.objectContaining({
          level: 'warn',
          context: 'McpPipeline',
          message: expect.stringMatching(/^AllExceptionsFilter wrote HTTP 500 .*host\.getType<string>\(\) === 'mcp'/),
        }),
      ]);
      expect(lines.filter((line) => line.message.startsWith('AuditedExceptionsFilter '))).toEqual([
        expect.objectContaining({ level: 'warn', context: 'McpPipeline' }),
      ]);
      expect(lines).toHaveLength(2);
    });
  },
);
