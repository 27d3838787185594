/**
 * Child process: the floor. A plain POST controller at /floor that reads the parsed JSON body
 * and hand-builds the bytes the MCP server answers for `tools/call echo` and `tools/list`, in
 * both eras, the way our transport writes them (writeHead + end, same header set). Nothing else:
 * no validation, no sessions, no protocol checks.
 *
 * It is mounted in the same application as the server (the sample's AppModule, with the same
 * 100 tools registered), in its own process: both processes then carry the same modules, heap
 * and middleware, and the difference between them is what handling a request through MCP
 * costs, not the size of the application around it.
 */
import 'reflect-metadata';
import { Controller, Module, Post, Req, Res } from '@nestjs/common';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { AppModule } from '../sample/app.module';
import { fillRegistry } from './bench-tools';
import { floorAnswer, type FloorLists, type FloorRequest } from './floor-answer';
import { benchPlatform, createBenchApp, type ParentMessage, ReportingLogger, send, serve } from './child-runtime';

/** The tools the list scenarios return, rendered per era (the bench sends them at startup). */
const lists: FloorLists = { legacy: [], modern: [] };

/** What the floor reads of a request: Express's and Fastify's both have the parsed body and the headers. */
interface PlatformRequest {
  body: FloorRequest;
  headers: IncomingHttpHeaders;
}

/** Express hands the floor Node's response; Fastify its reply, with Node's response as `raw`. */
type PlatformResponse = ServerResponse | { raw: ServerResponse; hijack(): void };

const FASTIFY = benchPlatform() === 'fastify';

@Controller('floor')
class FloorController {
  @Post()
  post(@Req() req: PlatformRequest, @Res() res: PlatformResponse): void {
    const { payload, head } = floorAnswer(req.body, req.headers, lists);
    let raw: ServerResponse;
    if (FASTIFY) {
      // Taken over from Fastify, as the module's transport does, and written the same way.
      const reply = res as { raw: ServerResponse; hijack(): void };
      reply.hijack();
      raw = reply.raw;
    } else {
      raw = res as ServerResponse;
    }
    raw.writeHead(200, head);
    raw.end(payload);
  }
}

@Module({ imports: [AppModule], controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await createBenchApp(FloorModule, new ReportingLogger('FloorServer'));
  await app.init();
  // The same tools as the server, so that both processes carry the same application.
  fillRegistry(app);
  await serve(
    app,
    (message: ParentMessage) => {
      if (message.type === 'tools') {
        lists.legacy = message.legacy;
        lists.modern = message.modern;
        send({ type: 'ack' });
      }
    },
    { path: 'floor' },
  );
}

main().catch((error: unknown) => {
  send({ type: 'server-error', message: `startup failed: ${error instanceof Error ? error.stack : String(error)}` });
  process.exit(1);
});
