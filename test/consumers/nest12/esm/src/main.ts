import 'reflect-metadata';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

/**
 * Prints facts the e2e spec checks, then the LISTENING line it waits for:
 * the module format this file runs as, the nest-mcp it loaded, and the @nestjs/core that
 * nest-mcp resolves from where it is installed.
 */
const nestMcpPath = fileURLToPath(import.meta.resolve('nest-mcp'));
const core = createRequire(nestMcpPath)('@nestjs/core/package.json') as { version: string };
console.log(`FORMAT ${typeof require === 'function' && typeof module === 'object' ? 'commonjs' : 'module'}`);
console.log(`NEST_MCP ${nestMcpPath}`);
console.log(`NEST_CORE ${core.version}`);

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
const { port } = app.getHttpServer().address() as AddressInfo;
console.log(`LISTENING http://127.0.0.1:${port}/mcp`);
