/**
 * The application of an e2e spec that only makes calls: a root module (or module metadata) compiled and initialised
 * (Express, or Fastify with `MCP_E2E_PLATFORM=fastify`, as `startHttpApp` does), without a port:
 * the spec drives it with the testing kit's `createMcpTestClient(app, ...)`. Close it with
 * `app.close()`.
 */
import type { DynamicModule, INestApplication, ModuleMetadata, Type } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { HttpAppOptions } from '../fixtures/http-app';

export async function mcpApp(
  root: Type | DynamicModule | ModuleMetadata,
  options: Pick<HttpAppOptions, 'platform' | 'configure' | 'globalPrefix'> = {},
): Promise<INestApplication> {
  const metadata = typeof root === 'function' || 'module' in root ? { imports: [root] } : root;
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const appOptions = { logger: process.env.MCP_E2E_LOG ? undefined : (false as const) };
  const platform = options.platform ?? (process.env.MCP_E2E_PLATFORM === 'fastify' ? 'fastify' : 'express');
  const app =
    platform === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), appOptions)
      : moduleRef.createNestApplication(appOptions);
  if (options.globalPrefix !== undefined) {
    app.setGlobalPrefix(options.globalPrefix);
  }
  await options.configure?.(app);
  await app.init();
  return app;
}
