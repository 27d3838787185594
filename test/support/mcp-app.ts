/**
 * The application of an e2e spec that only makes calls: a root module (or module metadata) compiled and initialised
 * (Express, or Fastify with `MCP_E2E_PLATFORM=fastify`, as `startHttpApp` does), without a port:
 * the spec drives it with the testing kit's `createMcpTestClient(app, ...)`. Close it with
 * `app.close()`.
 */
import type { DynamicModule, INestApplication, ModuleMetadata, Type } from '@nestjs/common';
import { createE2eApp, type HttpAppOptions } from '../fixtures/http-app';

export async function mcpApp(
  root: Type | DynamicModule | ModuleMetadata,
  options: Pick<HttpAppOptions, 'platform' | 'configure' | 'globalPrefix'> = {},
): Promise<INestApplication> {
  const metadata = typeof root === 'function' || 'module' in root ? { imports: [root] } : root;
  const app = await createE2eApp(metadata, options);
  await app.init();
  return app;
}
