import 'reflect-metadata';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import { McpHealthIndicator, getMcpToken } from 'nest-mcp';
import { AppModule } from './app.module.js';

/** The error code an import of an internal path of nest-mcp fails with, or `loaded`. */
async function deepImport(): Promise<string> {
  // A variable: the compiler must not resolve it either.
  const internal = 'nest-mcp/dist/mcp.module.js';
  try {
    await import(internal);
    return 'loaded';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

/**
 * Prints facts the e2e spec checks, then the LISTENING line it waits for:
 * the module format this file runs as, the nest-mcp it loaded, the @nestjs/core that
 * nest-mcp resolves from where it is installed, what a deep import gives, what
 * `nest-mcp/package.json` says, the health indicator's result (without @nestjs/terminus) of the
 * default server and of admin (by its named token), and admin's URL.
 */
const nestMcpPath = fileURLToPath(import.meta.resolve('nest-mcp'));
const core = createRequire(nestMcpPath)('@nestjs/core/package.json') as { version: string };
console.log(`FORMAT ${typeof require === 'function' && typeof module === 'object' ? 'commonjs' : 'module'}`);
console.log(`NEST_MCP ${nestMcpPath}`);
console.log(`NEST_CORE ${core.version}`);
console.log(`DEEP_IMPORT ${await deepImport()}`);
const ownPackage = createRequire(import.meta.url)('nest-mcp/package.json') as { version: string };
console.log(`PACKAGE_JSON ${ownPackage.version}`);

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
console.log(`HEALTH ${JSON.stringify(await app.get(McpHealthIndicator).isHealthy())}`);
const adminHealth = app.get<McpHealthIndicator>(getMcpToken(McpHealthIndicator, 'admin'));
console.log(`ADMIN_HEALTH ${JSON.stringify(await adminHealth.isHealthy())}`);
const { port } = app.getHttpServer().address() as AddressInfo;
console.log(`ADMIN_URL http://127.0.0.1:${port}/admin`);
console.log(`LISTENING http://127.0.0.1:${port}/mcp`);
