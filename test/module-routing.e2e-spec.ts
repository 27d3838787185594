/**
 * The MCP endpoint is an ordinary Nest route: the global prefix, versioning and middleware of
 * the application apply to it.
 */
import { VersioningType } from '@nestjs/common';
import { McpModule } from '../lib';
import { MiddlewareAppModule, OPTIONS, PingTools } from './fixtures/pipeline-module-wiring';
import { firstText, rawPost, startApp, type RunningApp, type StartOptions } from './fixtures/pipeline-app';

const PING = { id: 1, method: 'ping' };

describe.each<{
  title: string;
  configure: StartOptions['configure'];
  path?: string;
  served: string;
  unserved: string[];
}>([
  {
    title: "a global prefix ('api')",
    configure: (app) => void app.setGlobalPrefix('api'),
    served: '/api/mcp',
    unserved: ['/mcp'],
  },
  {
    title: "a global prefix ('api') with a custom path",
    configure: (app) => void app.setGlobalPrefix('api'),
    path: 'assistant',
    served: '/api/assistant',
    unserved: ['/mcp', '/assistant', '/api/mcp'],
  },
  {
    title: 'URI versioning without a default version (the endpoint stays unversioned)',
    configure: (app) => void app.enableVersioning({ type: VersioningType.URI }),
    served: '/mcp',
    unserved: ['/v1/mcp'],
  },
  {
    title: "URI versioning with defaultVersion '1'",
    configure: (app) => void app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }),
    served: '/v1/mcp',
    unserved: ['/mcp'],
  },
  {
    title: "a global prefix and URI versioning with defaultVersion '2'",
    configure: (app) => {
      app.setGlobalPrefix('api');
      app.enableVersioning({ type: VersioningType.URI, defaultVersion: '2' });
    },
    served: '/api/v2/mcp',
    unserved: ['/mcp', '/api/mcp', '/v2/mcp'],
  },
])('the endpoint under $title', ({ configure, path, served, unserved }) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(
      {
        imports: [McpModule.forRoot(path === undefined ? OPTIONS : { ...OPTIONS, path })],
        providers: [PingTools],
      },
      { configure },
    );
  });

  afterAll(async () => {
    await running?.close();
  });

  it(`is served at ${served}`, async () => {
    const client = await running.connect({ path: served });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['pang', 'ping']);
    expect(firstText(await client.callTool({ name: 'ping', arguments: {} }))).toBe('pong');
  });

  it.each(unserved)('is not served at %s', async (other) => {
    const reply = await rawPost(running.url(other), PING);
    expect(reply.status).toBe(404);
  });
});

describe('Nest middleware bound to the endpoint', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({ imports: [MiddlewareAppModule] });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('runs before the endpoint: it can refuse a request (401 without the API key)', async () => {
    const reply = await rawPost(running.url(), PING);
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: 'missing api key' });
  });

  it('runs on admitted requests: its response header and request property reach the client and the tool', async () => {
    const headers = { 'x-api-key': 'let-me-in' };
    const init = await rawPost(
      running.url(),
      {
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      headers,
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('x-stamp')).toBe('yes');

    const client = await running.connect({ headers });
    expect(firstText(await client.callTool({ name: 'stamp', arguments: {} }))).toBe('stamped-by-middleware');
  });
});
