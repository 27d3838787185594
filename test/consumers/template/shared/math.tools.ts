import { Controller, Get, Injectable, Module, Param, ParseIntPipe } from '@nestjs/common';
import { McpRoute, McpTool, McpArgs } from 'nest-mcp';

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

/** A REST route shown as a tool, in an app without @nestjs/swagger installed. */
@Controller('math')
export class MathController {
  @Get('double/:n')
  @McpRoute()
  double(@Param('n', ParseIntPipe) n: number): { doubled: number } {
    return { doubled: n * 2 };
  }
}

/** The tools of the existing server, in a module of their own so that its `include` names them. */
@Module({ providers: [MathTools], controllers: [MathController] })
export class MathToolsModule {}
