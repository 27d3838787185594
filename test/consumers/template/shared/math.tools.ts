import { Injectable, Module } from '@nestjs/common';
import { McpTool, McpArgs } from 'nest-mcp';

@Injectable()
export class MathTools {
  @McpTool({
    description: 'Adds two numbers',
    input: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
    },
  })
  add(@McpArgs() args: { a: number; b: number }): { sum: number } {
    return { sum: args.a + args.b };
  }
}

/** The tools of the existing server, in a module of their own so that its `include` names them. */
@Module({ providers: [MathTools] })
export class MathToolsModule {}
