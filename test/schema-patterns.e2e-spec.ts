/**
 * Schema `pattern`s run in time linear in the argument, through the official clients of both
 * eras: a pattern that makes JavaScript's RegExp backtrack for seconds (`^(a+)+$`) answers a
 * hostile argument at once with the schema's own validation error, ordinary patterns validate as
 * before, and a pattern the linear engine cannot run stops the application at startup unless the
 * application lists it in `nativeSchemaPatterns`.
 */
import { Injectable } from '@nestjs/common';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { McpConfigurationError, McpModule, McpTool } from 'nest-mcp';
import { type Adapter, firstText, startApp, startupError, type RunningApp } from './fixtures/pipeline-app';

const ADAPTERS: Adapter[] = ['express', 'fastify'];
/**
 * Forty-one characters that make `^(a+)+$` backtrack through 2^40 ways before failing: hours for
 * a backtracking engine, well under a millisecond for the linear one. The bound the tests put on
 * a call (a second) is no speed target (speed is measured by npm run bench): it only tells the
 * two engines apart, with room for a busy machine.
 */
const HOSTILE = `${'a'.repeat(40)}!`;

@Injectable()
class PatternTools {
  @McpTool({
    description: 'Takes a word of a letters and an order code',
    input: {
      type: 'object',
      properties: {
        word: { type: 'string', pattern: '^(a+)+$' },
        code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
      },
    },
  })
  check(args: { word?: string; code?: string }): string {
    return `ok ${JSON.stringify(args)}`;
  }
}

@Injectable()
class BackreferenceTools {
  @McpTool({
    description: 'Takes a doubled letter',
    input: { type: 'object', properties: { pair: { type: 'string', pattern: '^(\\w)\\1$' } } },
  })
  pair(args: { pair: string }): string {
    return `ok ${args.pair}`;
  }
}

/** What a tool call gives either client, in the fields both have. */
type CallResult = { isError?: boolean; content: unknown };

/** Calls `check` once to warm the validator, then times one call with `args`. */
async function timedCall(
  call: (args: Record<string, string>) => Promise<CallResult>,
  args: Record<string, string>,
): Promise<{ result: CallResult; ms: number }> {
  await call({ word: 'aaa' });
  const started = performance.now();
  const result = await call(args);
  return { result, ms: performance.now() - started };
}

describe.each(ADAPTERS)('schema patterns (%s)', (adapter) => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp(
      { imports: [McpModule.forRoot({ name: 'patterns', version: '1.0.0' })], providers: [PatternTools] },
      { adapter },
    );
  });

  afterAll(async () => {
    await running.close();
  });

  describe('through the v1 client (legacy era)', () => {
    let client: LegacyClient;
    const call = (args: Record<string, string>) =>
      client.callTool({ name: 'check', arguments: args }) as Promise<CallResult>;

    beforeAll(async () => {
      client = await running.connect();
    });

    it('answers ^(a+)+$ on a hostile argument without backtracking, with the validation error', async () => {
      const { result, ms } = await timedCall(call, { word: HOSTILE });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Invalid arguments for tool check: /word must match pattern "^(a+)+$"');
      expect(ms).toBeLessThan(1_000);
    });

    it('validates ordinary patterns as before', async () => {
      expect(firstText(await call({ word: 'aaaa', code: 'ABC-1234' }))).toBe('ok {"word":"aaaa","code":"ABC-1234"}');
      const refused = await call({ code: 'abc-1234' });
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toBe('Invalid arguments for tool check: /code must match pattern "^[A-Z]{3}-\\d{4}$"');
    });
  });

  describe('through the v2 client (modern era)', () => {
    let client: ModernClient;
    const call = (args: Record<string, string>) =>
      client.callTool({ name: 'check', arguments: args }) as Promise<CallResult>;

    beforeAll(async () => {
      client = new ModernClient({ name: 'patterns-v2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new ModernTransport(running.url()));
    });

    afterAll(async () => {
      await client.close();
    });

    it('answers ^(a+)+$ on a hostile argument without backtracking, with the validation error', async () => {
      const { result, ms } = await timedCall(call, { word: HOSTILE });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Invalid arguments for tool check: /word must match pattern "^(a+)+$"');
      expect(ms).toBeLessThan(1_000);
    });

    it('validates ordinary patterns as before', async () => {
      expect(firstText(await call({ code: 'XYZ-0001' }))).toBe('ok {"code":"XYZ-0001"}');
      expect((await call({ code: 'XYZ-01' })).isError).toBe(true);
    });
  });
});

describe('a pattern the linear engine cannot run', () => {
  it('stops the application at startup, naming the tool, the pattern and the option', async () => {
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'patterns', version: '1.0.0' })],
      providers: [BackreferenceTools],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toBe(
      'Invalid input schema of MCP tool "pair": pattern "^(\\w)\\1$" cannot be tested in linear time (it has a backreference); list it in the McpModule option "nativeSchemaPatterns" to test it with JavaScript\'s RegExp, which backtracks (at BackreferenceTools.pair)',
    );
  });

  it('runs on JavaScript RegExp once listed in nativeSchemaPatterns', async () => {
    const running = await startApp({
      imports: [McpModule.forRoot({ name: 'patterns', version: '1.0.0', nativeSchemaPatterns: ['^(\\w)\\1$'] })],
      providers: [BackreferenceTools],
    });
    try {
      const client = await running.connect();
      expect(firstText(await client.callTool({ name: 'pair', arguments: { pair: 'zz' } }))).toBe('ok zz');
      const refused = await client.callTool({ name: 'pair', arguments: { pair: 'zy' } });
      expect(refused.isError).toBe(true);
    } finally {
      await running.close();
    }
  });
});
