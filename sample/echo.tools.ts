import { Injectable } from '@nestjs/common';
import { McpTool, McpArgs } from 'nest-mcp';

@Injectable()
export class EchoTools {
  /** Returns its input as text; the checks and the benchmark use it. */
  @McpTool({
    description: 'Echoes the given text back',
    input: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to echo' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
  })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}
