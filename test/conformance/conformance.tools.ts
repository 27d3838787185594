import { Injectable } from '@nestjs/common';
import { McpErrorCode, McpCtx, type McpCallContext, McpError, McpTool, McpToolError, McpArgs } from 'nest-mcp';
import { JSON_SCHEMA_2020_12_INPUT, PNG_1X1_BASE64, WAV_SILENCE_BASE64, sleep } from './conformance.fixtures';
import { DYNAMIC_PROMPT, DYNAMIC_TOOL, type DynamicChange, DynamicLists } from './conformance.dynamic';

/** The answer of a trigger: an error when some instance did not confirm the change in time. */
function changed(name: string, change: DynamicChange): string {
  const done = `${change.present ? 'Added' : 'Removed'} ${name}`;
  if (change.applied < change.instances) {
    throw new McpToolError(`${done}, but only ${change.applied} of ${change.instances} instances confirmed it`);
  }
  return done;
}

/**
 * The tools the official conformance suite calls (`conformance server`). Names, arguments and
 * outputs follow the suite's scenario descriptions. The tools that ask the client for input are
 * in `conformance.input.ts`.
 */
@Injectable()
export class ConformanceTools {
  constructor(private readonly dynamic: DynamicLists) {}

  @McpTool({ description: 'Returns a simple text response' })
  test_simple_text() {
    return 'This is a simple text response for testing.';
  }

  @McpTool({ description: 'Returns an image (a 1x1 PNG)' })
  test_image_content() {
    return { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' };
  }

  @McpTool({ description: 'Returns audio (a short silent WAV)' })
  test_audio_content() {
    return { type: 'audio', data: WAV_SILENCE_BASE64, mimeType: 'audio/wav' };
  }

  @McpTool({ description: 'Returns an embedded text resource' })
  test_embedded_resource() {
    return {
      type: 'resource',
      resource: {
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      },
    };
  }

  @McpTool({ description: 'Returns text, an image and an embedded resource' })
  test_multiple_content_types() {
    return [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ];
  }

  @McpTool({ description: 'Sends three info log messages, about 50 ms apart, while it runs' })
  async test_tool_with_logging(@McpCtx() ctx: McpCallContext) {
    ctx.log('info', 'Tool execution started');
    await sleep(50, ctx.signal);
    ctx.log('info', 'Tool processing data');
    await sleep(50, ctx.signal);
    ctx.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  }

  @McpTool({ description: 'Reports progress 0, 50 and 100 of 100 when the request carries a progress token' })
  async test_tool_with_progress(@McpCtx() ctx: McpCallContext) {
    for (const step of [0, 50, 100]) {
      if (step > 0) {
        await sleep(50, ctx.signal);
      }
      ctx.progress(step, 100, `Completed step ${step} of 100`);
    }
    return 'Progress reported: 0, 50 and 100 of 100';
  }

  @McpTool({ description: 'Always fails with a tool execution error (isError: true)' })
  test_error_handling(): never {
    throw new McpToolError('This tool intentionally returns an error for testing');
  }

  @McpTool({
    description:
      'Closes its SSE stream mid-call (SEP-1699): the client reconnects with Last-Event-ID and gets the result from the replay buffer',
  })
  async test_reconnection(@McpCtx() ctx: McpCallContext) {
    // The log message turns the answer into an SSE stream (opened with the priming event); the
    // stream would open on closeStream() anyway, this only gives the client one more event.
    ctx.log('info', 'Closing the stream: reconnect with Last-Event-ID to get the result');
    ctx.closeStream();
    await sleep(150, ctx.signal);
    return 'Reconnection test completed successfully.';
  }

  @McpTool({
    description: 'Declares a JSON Schema 2020-12 input schema ($schema, $defs, $anchor, allOf/anyOf, if/then/else)',
    input: JSON_SCHEMA_2020_12_INPUT,
  })
  json_schema_2020_12_tool(@McpArgs() args: Record<string, unknown>) {
    return `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`;
  }

  @McpTool({
    description: 'Echoes a region that clients mirror into the Mcp-Param-Region header (SEP-2243)',
    input: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'A region name, such as us-west1', 'x-mcp-header': 'Region' },
      },
      required: ['region'],
    },
  })
  test_header_param(@McpArgs('region') region: string) {
    return `Region: ${region}`;
  }

  // Both triggers answer once every instance has the change (conformance.dynamic.ts): the next
  // list request finds it wherever it lands.
  @McpTool({ description: `Changes the tool list (adds or removes ${DYNAMIC_TOOL}) so that clients are notified` })
  async test_trigger_tool_change() {
    return changed(DYNAMIC_TOOL, await this.dynamic.toggle('tool'));
  }

  @McpTool({ description: `Changes the prompt list (adds or removes ${DYNAMIC_PROMPT}) so that clients are notified` })
  async test_trigger_prompt_change() {
    return changed(DYNAMIC_PROMPT, await this.dynamic.toggle('prompt'));
  }

  @McpTool({ description: 'Needs the client sampling capability; without it the call fails with -32021' })
  test_missing_capability(@McpCtx() ctx: McpCallContext) {
    if (ctx.clientCapabilities.sampling === undefined) {
      throw new McpError(
        McpErrorCode.MissingRequiredClientCapability,
        'This tool needs the client capability "sampling"',
        { requiredCapabilities: { sampling: {} } },
      );
    }
    return 'Success: the client declared sampling';
  }

  @McpTool({ description: 'Logs one info message; it must reach the client only when the request asked for logs' })
  test_logging_tool(@McpCtx() ctx: McpCallContext) {
    ctx.log('info', 'Diagnostic trace logging activated');
    return 'Logging evaluated';
  }
}
