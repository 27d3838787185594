import { Injectable } from '@nestjs/common';
import { McpCtx, type McpCallContext, McpPrompt, McpTool, McpArgs } from 'nest-mcp';

/** The elicitation schema of `test_elicitation`. */
const CONTACT_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

/** One string property required: the schema of most MRTR questions. */
function askFor(property: string): Record<string, unknown> {
  return { type: 'object', properties: { [property]: { type: 'string' } }, required: [property] };
}

function textOf(content: unknown): string {
  const block = Array.isArray(content) ? content[0] : content;
  return typeof block === 'object' && block !== null && typeof (block as { text?: unknown }).text === 'string'
    ? (block as { text: string }).text
    : JSON.stringify(content);
}

/**
 * The conformance tools and prompt that ask the client for input: `ctx.elicit()`, `ctx.sample()`
 * and `ctx.listRoots()`. The same handlers serve both eras: in the legacy era (2025-11-25
 * scenarios) each question is a request on the call's stream; in the modern era (2026-07-28
 * `input-required-result-*` scenarios) it becomes an `input_required` round.
 */
@Injectable()
export class ConformanceInputTools {
  @McpTool({
    description: 'Asks the client to sample an LLM completion for the prompt',
    input: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  })
  async test_sampling(@McpArgs('prompt') prompt: string, @McpCtx() ctx: McpCallContext) {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
      maxTokens: 100,
    });
    return `LLM response: ${textOf(answer.content)}`;
  }

  @McpTool({
    description: 'Asks the user for a username and an email address',
    input: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  })
  async test_elicitation(@McpArgs('message') message: string, @McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit({ message, requestedSchema: CONTACT_SCHEMA });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @McpTool({ description: 'Elicits a form whose fields carry default values (SEP-1034)' })
  async test_elicitation_sep1034_defaults(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit({
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: {
            type: 'string',
            description: 'User status',
            enum: ['active', 'inactive', 'pending'],
            default: 'active',
          },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @McpTool({ description: 'Elicits a form with the five enum variants of SEP-1330' })
  async test_elicitation_sep1330_enums(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit({
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: {
            type: 'string',
            description: 'Untitled single-select',
            enum: ['option1', 'option2', 'option3'],
          },
          titledSingle: {
            type: 'string',
            description: 'Titled single-select',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: {
            type: 'string',
            description: 'Legacy titled enum',
            enum: ['opt1', 'opt2', 'opt3'],
            enumNames: ['Option One', 'Option Two', 'Option Three'],
          },
          untitledMulti: {
            type: 'array',
            description: 'Untitled multi-select',
            items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          },
          titledMulti: {
            type: 'array',
            description: 'Titled multi-select',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
        required: [],
      },
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  }

  @McpTool({ description: 'Elicits input while it runs; the question never travels as a request on the stream' })
  async test_streaming_elicitation(@McpCtx() ctx: McpCallContext) {
    ctx.log('info', 'Asking the user');
    const answer = await ctx.elicit({ message: 'Continue?', requestedSchema: askFor('answer') });
    return `Streaming elicitation: action=${answer.action}`;
  }

  @McpTool({ description: 'MRTR: asks for the user name (key user_name), then greets' })
  async test_input_required_result_elicitation(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit(
      { message: 'What is your name?', requestedSchema: askFor('name') },
      { key: 'user_name' },
    );
    return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
  }

  @McpTool({ description: 'MRTR: asks the client to sample (key capital_question)' })
  async test_input_required_result_sampling(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.sample(
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      },
      { key: 'capital_question' },
    );
    return `Sampling answered: ${textOf(answer.content)}`;
  }

  @McpTool({ description: 'MRTR: asks for the client roots (key client_roots)' })
  async test_input_required_result_list_roots(@McpCtx() ctx: McpCallContext) {
    const { roots } = await ctx.listRoots({ key: 'client_roots' });
    return `Roots: ${roots.map((root) => root.uri).join(', ')}`;
  }

  @McpTool({ description: 'MRTR: keeps handler state across rounds in requestState (key confirm)' })
  async test_input_required_result_request_state(@McpCtx() ctx: McpCallContext) {
    if (ctx.state.askedAt === undefined) {
      ctx.state.askedAt = 'round-1';
    }
    const answer = await ctx.elicit(
      {
        message: 'Please confirm',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
      { key: 'confirm' },
    );
    // The state set in the first round arrives back through the signed requestState.
    const verified = ctx.state.askedAt === 'round-1';
    return `${verified ? 'state-ok' : 'state-missing'}: confirmed=${String(answer.content?.ok)}`;
  }

  @McpTool({ description: 'MRTR: asks three questions at once (elicitation, sampling, roots)' })
  async test_input_required_result_multiple_inputs(@McpCtx() ctx: McpCallContext) {
    const [name, greeting, roots] = await Promise.all([
      ctx.elicit({ message: 'What is your name?', requestedSchema: askFor('name') }, { key: 'user_name' }),
      ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        { key: 'greeting' },
      ),
      ctx.listRoots({ key: 'client_roots' }),
    ]);
    return `${textOf(greeting.content)} ${String(name.content?.name)} (${roots.roots.length} roots)`;
  }

  @McpTool({ description: 'MRTR: two rounds of questions (step1, then step2)' })
  async test_input_required_result_multi_round(@McpCtx() ctx: McpCallContext) {
    const step1 = await ctx.elicit(
      { message: 'Step 1: What is your name?', requestedSchema: askFor('name') },
      { key: 'step1' },
    );
    const step2 = await ctx.elicit(
      { message: 'Step 2: What is your favorite color?', requestedSchema: askFor('color') },
      { key: 'step2' },
    );
    return `${String(step1.content?.name)} likes ${String(step2.content?.color)}`;
  }

  @McpTool({ description: 'MRTR: its requestState is signed, so a tampered one is refused' })
  async test_input_required_result_tampered_state(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit(
      {
        message: 'Please confirm',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      },
      { key: 'confirm' },
    );
    return `Confirmed: ${String(answer.content?.ok)}`;
  }

  @McpTool({ description: 'MRTR: asks only what the client declared it can answer' })
  async test_input_required_result_capabilities(@McpCtx() ctx: McpCallContext) {
    const { sampling, elicitation } = ctx.clientCapabilities;
    const parts: string[] = [];
    if (sampling !== undefined) {
      const answer = await ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 },
        { key: 'sampling_probe' },
      );
      parts.push(`sampling: ${textOf(answer.content)}`);
    }
    if (elicitation !== undefined) {
      const answer = await ctx.elicit(
        { message: 'Your name?', requestedSchema: askFor('name') },
        { key: 'elicit_probe' },
      );
      parts.push(`elicitation: ${answer.action}`);
    }
    return parts.length > 0 ? parts.join('; ') : 'The client declared neither sampling nor elicitation';
  }

  @McpPrompt({ description: 'MRTR on prompts/get: asks for context first (key user_context)' })
  async test_input_required_result_prompt(@McpCtx() ctx: McpCallContext) {
    const answer = await ctx.elicit(
      { message: 'What context should the prompt use?', requestedSchema: askFor('context') },
      { key: 'user_context' },
    );
    return `Use this context: ${String(answer.content?.context)}`;
  }
}
