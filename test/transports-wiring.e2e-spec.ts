/**
 * Wiring of the extra HTTP transports: the simple endpoint and the SSE pair are off unless their
 * extras are set, are mounted by forRoot and forRootAsync alike, and a bad combination of paths
 * stops the application at startup with a message naming the option.
 */
import { type DynamicModule, Module } from '@nestjs/common';
import { MCP_MODULE_OPTIONS, McpConfigurationError, McpModule } from 'nest-mcp';
import { type HttpApp, startHttpApp } from './fixtures/http-app';
import {
  PLATFORMS,
  ROUTINGS,
  startTransportsApp,
  TRANSPORTS_SERVER,
  TransportsFixtureModule,
  type TransportsApp,
} from './fixtures/transports-fixture';
import { exchange, legacyRequest, post, SseEventReader } from './fixtures/raw-rpc';

@Module({})
class AsyncHostModule {}

/** Opens the event stream at `url` and returns its endpoint event's data. */
async function endpointOf(url: URL): Promise<string> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  const reader = new SseEventReader(response);
  try {
    const event = await reader.nextEvent();
    expect(event.event).toBe('endpoint');
    return String(event.data);
  } finally {
    await reader.cancel();
  }
}

describe.each(PLATFORMS)('extra HTTP transports wiring (%s)', (platform) => {
  describe('without their extras', () => {
    let app: TransportsApp;

    beforeAll(async () => {
      app = await startTransportsApp({}, platform, ROUTINGS[0]);
    });

    afterAll(async () => {
      await app?.close();
    });

    it('serves neither the simple endpoint nor the SSE pair', async () => {
      expect((await post(app.route('rpc'), legacyRequest('ping'))).status).toBe(404);
      expect(
        (await exchange(app.route('sse'), { method: 'GET', headers: { accept: 'text/event-stream' } })).status,
      ).toBe(404);
      expect((await post(app.route('messages'), legacyRequest('ping'))).status).toBe(404);
    });
  });

  describe('forRootAsync with the extras and a custom path', () => {
    let app: HttpApp;

    beforeAll(async () => {
      const module: DynamicModule = {
        module: AsyncHostModule,
        imports: [
          McpModule.forRootAsync({
            path: 'assistant',
            simpleHttpPath: 'assistant/rpc',
            ssePath: 'assistant/sse',
            sseMessagesPath: 'assistant/messages',
            useFactory: async () => ({ ...TRANSPORTS_SERVER }),
          }),
        ],
      };
      app = await startHttpApp(module, { platform, path: 'assistant' });
    });

    afterAll(async () => {
      await app?.close();
    });

    it('mounts every transport (the extras are known synchronously)', async () => {
      const simple = await post(new URL('/assistant/rpc', app.baseUrl), legacyRequest('ping', undefined, 1));
      expect(simple.json).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      expect(await endpointOf(new URL('/assistant/sse', app.baseUrl))).toMatch(
        /^\/assistant\/messages\?sessionId=[^&]+$/,
      );
      const streamable = await post(app.url, legacyRequest('ping', undefined, 2));
      // Streamable HTTP is there: a legacy request without a session is refused by it, not 404.
      expect(streamable.status).toBe(400);
    });

    it('keeps the extras out of the module options', () => {
      expect(app.app.get(MCP_MODULE_OPTIONS)).toEqual(TRANSPORTS_SERVER);
    });
  });
});

describe('a bad combination of paths stops the application at startup', () => {
  const OPTIONS = { name: 'wiring', version: '1.0.0' };

  it('forRoot with ssePath but no sseMessagesPath', () => {
    expect(() => McpModule.forRoot({ ...OPTIONS, ssePath: 'sse' })).toThrow(McpConfigurationError);
    expect(() => McpModule.forRoot({ ...OPTIONS, ssePath: 'sse' })).toThrow(
      'Invalid McpModule option "sseMessagesPath": is needed with the other: the SSE pair takes both paths',
    );
  });

  it('forRootAsync with ssePath but no sseMessagesPath', () => {
    expect(() => McpModule.forRootAsync({ ssePath: 'sse', useFactory: () => OPTIONS })).toThrow(
      /Invalid McpModule option "sseMessagesPath"/,
    );
  });

  it('an application importing it does not start', async () => {
    const start = async () => startHttpApp(TransportsFixtureModule.forRoot({ ssePath: 'sse' }));
    await expect(start()).rejects.toThrow(McpConfigurationError);
  });

  it('forRoot with simpleHttpPath equal to the Streamable HTTP path', () => {
    expect(() => McpModule.forRoot({ ...OPTIONS, path: 'rpc', simpleHttpPath: '/rpc' })).toThrow(
      /Invalid McpModule option "simpleHttpPath": is the same path as path/,
    );
  });

  it('forRoot with a path that carries a query', () => {
    expect(() => McpModule.forRoot({ ...OPTIONS, simpleHttpPath: 'rpc?v=1' })).toThrow(
      /Invalid McpModule option "simpleHttpPath"/,
    );
  });
});
