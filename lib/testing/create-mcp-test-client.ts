/**
 * The connectors a test client is made with: given an application (initialised here if need be)
 * or a testing module (the application made here, and closed with the client), a connection in
 * memory to the application's own HTTP server; given a URL, the network.
 */
import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import { getMcpEndpointPath } from '../index';
import { inProcessConnector, networkConnector } from './http-exchange';
import { McpTestClient } from './mcp-test-client';
import type { McpTestClientOptions, McpTestTarget } from './mcp-test.types';

function isApplication(target: object): target is INestApplication {
  return typeof (target as INestApplication).getHttpServer === 'function';
}

/**
 * Makes an MCP client for tests. Given an application (initialised or not: the client inits
 * it) or a compiled testing module (the client makes the application, and closes it with
 * itself), each request goes through a connection in memory to the application's own HTTP
 * server: no port, yet the real HTTP parser, platform, middleware, auth, guards and engine.
 * Given a URL, the same client talks over the network.
 *
 * @example
 * ```ts
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
 * const client = await createMcpTestClient(moduleRef, { headers: { authorization: 'Bearer t' } });
 * const result = await client.callTool('add', { a: 1, b: 2 });
 * expect(result.content).toEqual([{ type: 'text', text: '3' }]);
 * await client.close(); // closes the application made from the module too
 * ```
 * @publicApi
 */
export async function createMcpTestClient(
  target: McpTestTarget,
  options: McpTestClientOptions = {},
): Promise<McpTestClient> {
  if (typeof target === 'string' || target instanceof URL) {
    const url = new URL(String(target));
    return new McpTestClient(
      networkConnector(url),
      options.path ?? `${url.pathname}${url.search}`,
      options,
      async () => undefined,
    );
  }
  let app: INestApplication;
  let owned = false;
  if (isApplication(target)) {
    app = target;
  } else {
    app = target.createNestApplication({ logger: false });
    owned = true;
  }
  await app.init();
  const adapter = app.getHttpAdapter();
  if (adapter.getType() === 'fastify') {
    await (adapter.getInstance() as { ready(): Promise<unknown> }).ready();
  }
  const path = options.path ?? getMcpEndpointPath(app, options.server);
  return new McpTestClient(inProcessConnector(app.getHttpServer() as Server), path, options, async () => {
    if (owned) await app.close();
  });
}
