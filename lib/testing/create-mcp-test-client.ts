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
import type { McpTestClientOptions, McpTestingModuleLike, McpTestTarget } from './mcp-test.types';

function isApplication(target: object): target is INestApplication {
  return typeof (target as INestApplication).getHttpServer === 'function';
}

/** The application made from a testing module, and how many open clients use it. */
interface MadeApplication {
  readonly app: Promise<INestApplication>;
  clients: number;
}

/**
 * One application per testing module: a module's providers are singletons, so a second
 * application made from it would discover and register the same handlers again (a duplicate
 * tool). The clients made from one module (one per principal, say) share its application,
 * which closes with the last of them.
 */
const madeFrom = new WeakMap<object, MadeApplication>();

/** The application of `moduleRef`, made and initialised by the first client that needs it. */
function applicationOf(moduleRef: McpTestingModuleLike): MadeApplication {
  let made = madeFrom.get(moduleRef);
  if (made === undefined) {
    const app = moduleRef.createNestApplication({ logger: false });
    made = { app: app.init().then(() => app), clients: 0 };
    madeFrom.set(moduleRef, made);
  }
  return made;
}

/**
 * Makes an MCP client for tests. Given an application (initialised or not: the client inits
 * it) or a compiled testing module (the client makes the application, shared by every client made
 * from that module, and closed with the last of them), each request goes through a connection in memory to the application's own HTTP
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
  let made: MadeApplication | undefined;
  if (isApplication(target)) {
    app = target;
    await app.init();
  } else {
    made = applicationOf(target);
    made.clients += 1;
    try {
      app = await made.app;
    } catch (error) {
      madeFrom.delete(target);
      throw error;
    }
  }
  /** Lets go of the made application: closed with its last client. */
  const release = async (): Promise<void> => {
    if (made !== undefined && --made.clients === 0) {
      madeFrom.delete(target);
      await app.close();
    }
  };
  try {
    const adapter = app.getHttpAdapter();
    if (adapter.getType() === 'fastify') {
      await (adapter.getInstance() as { ready(): Promise<unknown> }).ready();
    }
    const path = options.path ?? getMcpEndpointPath(app, options.server);
    return new McpTestClient(inProcessConnector(app.getHttpServer() as Server), path, options, release);
  } catch (error) {
    // No client, no holder: an unknown server name does not keep the application open.
    await release();
    throw error;
  }
}
