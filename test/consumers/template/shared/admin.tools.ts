import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { InjectMcp, McpCtx, type McpCallContext, McpRegistry, McpTool, McpArgs } from 'nest-mcp';

/** The API key of the admin server; the e2e spec sends it in `x-api-key`. */
export const ADMIN_KEY = 'consumer-admin-key-0123456789';

/** The admin server's decorated tools: discovered by admin only (its `include`). */
@Injectable()
export class AdminTools {
  @McpTool({
    description: 'Says who the caller is',
    input: { type: 'object', properties: {}, additionalProperties: false },
    output: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  })
  admin_whoami(@McpCtx() ctx: McpCallContext): { id: string } {
    return { id: ctx.principal.id };
  }

  @McpTool({
    description: 'Reverses a text',
    input: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
  })
  admin_reverse(@McpArgs() args: { text: string }): string {
    return [...args.text].reverse().join('');
  }
}

/**
 * Adds one more tool to the admin server at runtime, through the admin registry injected by
 * name: the consumer's compiler checks the published typings of the named tokens.
 */
@Injectable()
export class AdminRuntimeTools implements OnModuleInit {
  constructor(@InjectMcp(McpRegistry, 'admin') private readonly registry: McpRegistry) {}

  onModuleInit(): void {
    this.registry.addTool({
      name: 'admin_runtime',
      description: 'Registered at runtime on the admin server',
      input: { type: 'object', properties: {}, additionalProperties: false },
      handler: (_args, ctx) => `runtime for ${ctx.principal.id}`,
    });
  }
}

@Module({ providers: [AdminTools, AdminRuntimeTools] })
export class AdminToolsModule {}
