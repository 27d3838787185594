/**
 * The cold-start application, compiled with tsc (bench/cold-start/tsconfig.build.json) and run
 * with plain `node`, as a user runs a built app. One process per measurement:
 *
 *   COLD_MODULE=1|0      with McpModule, or without it (a hand-built POST /mcp controller answers
 *                        `initialize` with the module's bytes, see initialize-answer.ts)
 *   COLD_TOOLS=<n>       `@McpTool` methods on ordinary providers (10 per provider class)
 *   BENCH_PLATFORM       express (default) or fastify
 *   PORT                 0: a free port
 *
 * Prints one line `COLD-START-LISTENING <json>` the moment it listens (the port and the child's
 * own milestones, ms since the process started); the bench's clock stops at the answer to its
 * first `initialize`, not at this line.
 *
 * The library is imported by relative paths (compiled next to this file, and bundled beside it
 * as it is published): the emitted JavaScript is run by node alone, without ts-node or
 * tsconfig-paths, so the `nest-mcp` path alias of tsconfig.json would not resolve.
 */
import { performance } from 'node:perf_hooks';
// Read before anything else is loaded: how long node itself took to reach the app's code.
const entered = performance.now();
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Controller, Injectable, Module, Post, Req, Res, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestApplicationOptions } from '@nestjs/common';
// Only the decorator: without McpModule an application would not load the module's code at all,
// but it keeps its providers, whose `@McpTool` metadata is then inert. Loading the rest of the
// library is part of what the module adds (the "with" variant requires the bundle, as
// `nest-mcp`; the decorator's metadata keys are strings, read the same by both copies).
import { McpTool } from '../../lib/decorators/mcp-tool.decorator';
import { initializeAnswer, SERVER_INFO } from './initialize-answer';
// Types only (erased): the values are required where each variant needs them.
import type { McpModule as McpModuleClass } from '../../lib';
import type { FastifyAdapter as FastifyAdapterClass } from '@nestjs/platform-fastify';
import { fillerTool } from '../tool-shape';

const WITH_MODULE = process.env.COLD_MODULE === '1';
const TOOL_COUNT = Number(process.env.COLD_TOOLS ?? 10);
const PLATFORM = process.env.BENCH_PLATFORM === 'fastify' ? 'fastify' : 'express';
const TOOLS_PER_PROVIDER = 10;

/**
 * `count` tools as users write them: `@McpTool`-decorated methods of `@Injectable()` classes,
 * 10 per class. The decorators are applied with `Reflect.decorate` and the same design-type
 * metadata tsc emits for a decorated `(args, ctx) => string` method, which is what the compiled
 * class of a user would run at load time. Each tool has a small JSON Schema input (a string, a
 * bounded integer and an enum): the shape of bench/tool-shape.ts, as the list scenarios' tools.
 */
function toolProviders(count: number): Type[] {
  const providers: Type[] = [];
  for (let p = 0; p * TOOLS_PER_PROVIDER < count; p++) {
    const className = `ColdTools${String(p).padStart(3, '0')}`;
    // A named class per provider, as written by hand (Nest keys providers by class).
    const provider = { [className]: class {} }[className] as Type;
    for (let m = 0; m < TOOLS_PER_PROVIDER && p * TOOLS_PER_PROVIDER + m < count; m++) {
      const i = p * TOOLS_PER_PROVIDER + m;
      const { name, description, input, annotations } = fillerTool(i, 'cold', 4);
      Object.defineProperty(provider.prototype, name, {
        value: (args: { query: string }) => `${name}: ${args.query}`,
        writable: true,
        configurable: true,
        enumerable: false,
      });
      const descriptor = Object.getOwnPropertyDescriptor(provider.prototype, name)!;
      const decorated = Reflect.decorate(
        [
          McpTool({ description, input, annotations }),
          Reflect.metadata('design:type', Function),
          Reflect.metadata('design:paramtypes', [Object, Object]),
          Reflect.metadata('design:returntype', String),
        ],
        provider.prototype,
        name,
        descriptor,
      ) as PropertyDescriptor | undefined;
      if (decorated !== undefined) {
        Object.defineProperty(provider.prototype, name, decorated);
      }
    }
    Reflect.decorate([Injectable()], provider);
    providers.push(provider);
  }
  return providers;
}

/** The platform's reply object: an Express response (Node's own) or a Fastify reply. */
interface Reply {
  writeHead?(status: number, headers: Record<string, string | number>): unknown;
  end?(body: string): unknown;
  code?(status: number): Reply;
  headers?(headers: Record<string, string | number>): Reply;
  send?(body: string): unknown;
}

/** Writes a JSON answer as the module's transport does (writeHead + end on Express). */
function reply(res: Reply, status: number, headers: Record<string, string>, payload: string): void {
  const all = { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  if (res.writeHead !== undefined && res.end !== undefined) {
    res.writeHead(status, all);
    res.end(payload);
  } else {
    res.code!(status).headers!(all).send!(payload);
  }
}

/**
 * The app without McpModule: POST /mcp answers an `initialize` with the bytes the module sends
 * (the bench checks every answer against the module's), with a new session id in the module's
 * format. Anything else is a 400: the bench sends nothing else.
 */
@Controller('mcp')
class HandBuiltInitializeController {
  @Post()
  post(@Req() req: { body?: { id?: unknown; method?: unknown } }, @Res() res: Reply): void {
    const body = req.body ?? {};
    if (body.method !== 'initialize') {
      reply(res, 400, {}, '{"error":"the cold-start app without McpModule only answers initialize"}');
      return;
    }
    reply(
      res,
      200,
      { 'mcp-session-id': `mcp_${randomBytes(16).toString('hex')}` },
      initializeAnswer(body.id as string | number),
    );
  }
}

async function main(): Promise<void> {
  const providers = toolProviders(TOOL_COUNT);
  const imports: DynamicModule[] = [];
  const controllers: Type[] = [];
  if (WITH_MODULE) {
    // What `import { McpModule } from 'nest-mcp'` loads: the published library, one bundled file
    // (bench/cold-start.ts bundles the compiled lib/ as `npm run build` does).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { McpModule } = require('../../library-bundle') as { McpModule: typeof McpModuleClass };
    imports.push(McpModule.forRoot({ ...SERVER_INFO, pageSize: 0 }));
  } else {
    controllers.push(HandBuiltInitializeController);
  }
  const loaded = performance.now();

  @Module({ imports, controllers, providers })
  class ColdStartModule {}

  const options: NestApplicationOptions = { logger: ['error', 'warn'] };
  let app;
  if (PLATFORM === 'fastify') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { FastifyAdapter } = require('@nestjs/platform-fastify') as {
      FastifyAdapter: typeof FastifyAdapterClass;
    };
    app = await NestFactory.create(ColdStartModule, new FastifyAdapter(), options);
  } else {
    app = await NestFactory.create(ColdStartModule, options);
  }
  const created = performance.now();
  await app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
  const listening = performance.now();
  // CPU time is what a busy machine distorts least: a second view of the same startup.
  const usage = process.cpuUsage();
  const cpuMs = (usage.user + usage.system) / 1000;
  const { port } = app.getHttpServer().address() as { port: number };
  const report = { port, platform: PLATFORM, tools: TOOL_COUNT, entered, loaded, created, listening, cpuMs };
  process.stdout.write(`COLD-START-LISTENING ${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`cold-start app failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
