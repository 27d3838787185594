import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { McpHealthIndicator, getMcpToken } from 'nest-mcp';
import { AppModule } from './app.module';

/** The error code a require of an internal path of nest-mcp fails with, or `loaded`. */
function deepRequire(): string {
  // A variable: the compiler must not resolve it either.
  const internal = 'nest-mcp/dist/mcp.module';
  try {
    require(internal);
    return 'loaded';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/**
 * Prints facts the e2e spec checks, then the LISTENING line it waits for:
 * the module format this file runs as, the nest-mcp it loaded, the @nestjs/core that
 * nest-mcp resolves from where it is installed, what a deep require gives, what
 * `nest-mcp/package.json` says, the health indicator's result (without @nestjs/terminus) of the
 * default server and of admin (by its named token), and admin's URL.
 */
async function bootstrap(): Promise<void> {
  const nestMcpPath = require.resolve('nest-mcp');
  const core = require(require.resolve('@nestjs/core/package.json', { paths: [nestMcpPath] })) as { version: string };
  console.log(`FORMAT ${typeof require === 'function' && typeof module === 'object' ? 'commonjs' : 'module'}`);
  console.log(`NEST_MCP ${nestMcpPath}`);
  console.log(`NEST_CORE ${core.version}`);
  console.log(`DEEP_REQUIRE ${deepRequire()}`);
  console.log(`PACKAGE_JSON ${(require('nest-mcp/package.json') as { name: string; version: string }).version}`);

  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  console.log(`HEALTH ${JSON.stringify(await app.get(McpHealthIndicator).isHealthy())}`);
  const adminHealth = app.get<McpHealthIndicator>(getMcpToken(McpHealthIndicator, 'admin'));
  console.log(`ADMIN_HEALTH ${JSON.stringify(await adminHealth.isHealthy())}`);
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(`ADMIN_URL http://127.0.0.1:${port}/admin`);
  console.log(`LISTENING http://127.0.0.1:${port}/mcp`);
}

bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
