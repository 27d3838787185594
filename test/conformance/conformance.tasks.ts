import { Injectable } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { McpErrorCode, McpCtx, type McpCallContext, McpError, McpTool, McpToolError, McpArgs } from 'nest-mcp';

/** Sleeps `ms`, or less if `signal` aborts (then rejects). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal });
}

/** Longer than the inline window (`tasks.inlineMs`, 100 ms): the call is a task by then. */
const PAST_THE_WINDOW_MS = 300;

const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};

/**
 * The fixture tools of the conformance suite's `tasks-*` scenarios (the 2026-07-28 tasks
 * extension, `io.modelcontextprotocol/tasks`).
 */
@Injectable()
export class ConformanceTaskTools {
  @McpTool({
    description: 'Greets by name (runs in place, never as a task)',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  })
  greet(@McpArgs('name') name: string) {
    return `Hello, ${name}!`;
  }

  @McpTool({
    description: 'Sleeps for `seconds`, then answers; may run as a task',
    input: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
      required: ['seconds'],
    },
    taskSupport: 'optional',
  })
  async slow_compute(@McpArgs() args: { seconds: number; label?: string }, @McpCtx() ctx: McpCallContext) {
    await sleep(args.seconds * 1000, ctx.signal);
    return `Computed ${args.label ?? 'result'} after ${args.seconds} s`;
  }

  @McpTool({
    description: 'Fails with a tool error after about a second; runs only as a task',
    taskSupport: 'required',
  })
  async failing_job(@McpCtx() ctx: McpCallContext) {
    await sleep(1_000, ctx.signal);
    throw new McpToolError('The job failed');
  }

  @McpTool({ description: 'Fails with a protocol error after about a second', taskSupport: 'optional' })
  async protocol_error_job(@McpCtx() ctx: McpCallContext) {
    await sleep(1_000, ctx.signal);
    throw new McpError(McpErrorCode.InternalError, 'The job broke down');
  }

  @McpTool({
    description: 'Asks the user to confirm the deletion of a file, as a task',
    input: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    taskSupport: 'optional',
  })
  async confirm_delete(@McpArgs('filename') filename: string, @McpCtx() ctx: McpCallContext) {
    await sleep(PAST_THE_WINDOW_MS, ctx.signal);
    const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA });
    return answer.action === 'accept' && answer.content?.confirm === true ? `Deleted ${filename}` : 'Kept the file';
  }

  @McpTool({ description: 'Asks two questions at once, as a task', taskSupport: 'optional' })
  async multi_input(@McpCtx() ctx: McpCallContext) {
    await sleep(PAST_THE_WINDOW_MS, ctx.signal);
    const [first, second] = await Promise.all([
      ctx.elicit({ message: 'First name?', requestedSchema: CONFIRM_SCHEMA }, { key: 'first' }),
      ctx.elicit({ message: 'Second name?', requestedSchema: CONFIRM_SCHEMA }, { key: 'second' }),
    ]);
    return `Answers: ${String(first.content?.name)}, ${String(second.content?.name)}`;
  }

  @McpTool({
    description: 'Asks for the user name in place (key user_name), then works on as a task',
    taskSupport: 'optional',
  })
  async test_tool_with_task(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit(
      {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
      { key: 'user_name' },
    );
    await sleep(1_000, ctx.signal);
    return `Hello, ${String(answer.content?.name)}!`;
  }
}
