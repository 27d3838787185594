import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { McpModule } from 'nest-mcp';
import { EchoTools } from './echo.tools';
import { ReportTools } from './jobs/report.tools';
import { NotesService } from './notes/notes.service';
import { NotesTools } from './notes/notes.tools';
import { NotesResources } from './notes/notes.resources';
import { NotesPrompts } from './notes/notes.prompts';
import { NotesController } from './notes/notes.controller';
import { RequestInfoTool } from './common/request-info.tool';
import { EditorGuard } from './common/editor.guard';
import { TimingInterceptor } from './common/timing.interceptor';
import { sampleAuth } from './common/sample-auth';
import { sampleRedis } from './common/sample-redis';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    McpModule.forRootAsync({
      // Besides Streamable HTTP at /mcp: the simple POST-only endpoint and the 2024-11-05 SSE pair.
      simpleHttpPath: 'rpc',
      ssePath: 'sse',
      sseMessagesPath: 'messages',
      // MCP_CONSOLE=1 serves the MCP console at /mcp/console (off otherwise). An extra, like the
      // paths: the console's routes are part of the module graph, so it is read here, from the
      // environment, synchronously, not from ConfigService in the factory below.
      console: process.env.MCP_CONSOLE === '1',
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: async (config: ConfigService) => ({
        name: 'notes',
        version: '1.0.0',
        title: 'Notes',
        description: 'A small notes server built with nest-mcp',
        instructions: 'Use search_notes before create_note to avoid duplicates.',
        pageSize: Number(config.get('MCP_PAGE_SIZE') ?? 0),
        // MCP_AUTH=none|bearer|apikey|basic, MCP_AUTH_SECRET=<token, key or user:password>
        auth: await sampleAuth(config.get('MCP_AUTH'), config.get('MCP_AUTH_SECRET')),
        // MCP_REDIS_URL=redis://127.0.0.1:6379 shares sessions, tasks and notifications between
        // instances (memory, one process, without it); or MCP_REDIS_CLUSTER=host:port,... (a Redis
        // Cluster), or MCP_REDIS_SENTINELS=host:port,... with MCP_REDIS_SENTINEL_NAME (Sentinel).
        // MCP_REQUEST_STATE_SECRET (32 bytes or more) must then be the same on every instance.
        // The notes themselves stay per process.
        ...sampleRedis(config.get('MCP_REDIS_URL'), config.get('MCP_REQUEST_STATE_SECRET'), {
          cluster: config.get('MCP_REDIS_CLUSTER'),
          sentinels: config.get('MCP_REDIS_SENTINELS'),
          sentinelName: config.get('MCP_REDIS_SENTINEL_NAME'),
        }),
        // MCP_ALLOWED_HOSTS=notes.example,notes.example:8443: the names clients reach the server by
        // when it is not reached on loopback by localhost (HOST=0.0.0.0 on a LAN, a container). Without
        // it, such a server answers IP addresses and localhost only (DNS rebinding).
        http: { allowedHosts: config.get<string>('MCP_ALLOWED_HOSTS')?.split(',') },
        // MCP_SESSIONS_PER_CALLER: the legacy sessions one caller may hold (100 by default); the
        // benchmark's memory section holds thousands from one client.
        sessions: { maxPerPrincipal: numberOrDefault(config.get<string>('MCP_SESSIONS_PER_CALLER')) },
        // One skill (Skills extension): sample/skills/notes-workflow, found beside this file
        // whatever the working directory.
        skills: { directory: join(__dirname, 'skills') },
        // The REST routes of NotesController are tools too (@McpRoutes); their calls carry the
        // header EditorGuard reads, so DELETE /api/notes/:id is guarded as delete_note is.
        routes: { forwardHeaders: ['x-notes-role'] },
      }),
    }),
  ],
  controllers: [NotesController],
  providers: [
    NotesService,
    NotesTools,
    NotesResources,
    NotesPrompts,
    EchoTools,
    ReportTools,
    RequestInfoTool,
    EditorGuard,
    TimingInterceptor,
  ],
})
export class AppModule {}

/** An optional number from the environment: `undefined` (the module's default) when unset. */
function numberOrDefault(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}
