/**
 * Schema `pattern`s run in time linear in the argument, through the testing kit in both
 * eras: a pattern that makes JavaScript's RegExp backtrack for seconds (`^(a+)+$`) answers a
 * hostile argument at once with the schema's own validation error, ordinary patterns validate as
 * before, and a pattern the linear engine cannot run stops the application at startup unless the
 * application lists it in `nativeSchemaPatterns`.
 */
import { Injectable } from '@nestjs/common';
import { McpConfigurationError, McpModule, McpTool } from 'nest-mcp';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { type Adapter, firstText, startupError } from './fixtures/pipeline-app';
import { mcpApp } from './support/mcp-app';

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

/** Calls `check` once to warm the validator, then times one call with `args`. */
async function timedCall(client: McpTestClient, args: Record<string, string>) {
  await client.callTool('check', { word: 'aaa' });
  const started = performance.now();
  const result = await client.callTool('check', args);
  return { result, ms: performance.now() - started };
}

describe.each(ADAPTERS.flatMap((adapter) => ['2025-06-18', '2026-07-28'].map((revision) => [adapter, revision])))(
  'schema patterns (%s, speaking %s)',
  (adapter, revision) => {
    let app: Awaited<ReturnType<typeof mcpApp>>;
    let client: McpTestClient;

    beforeAll(async () => {
      const imports = [McpModule.forRoot({ name: 'patterns', version: '1.0.0' })];
      app = await mcpApp({ imports, providers: [PatternTools] }, { platform: adapter as Adapter });
      client = await createMcpTestClient(app, { revision });
    });

    afterAll(async () => {
      await client.close();
      await app.close();
    });

    it('answers ^(a+)+$ on a hostile argument without backtracking, with the validation error', async () => {
      const { result, ms } = await timedCall(client, { word: HOSTILE });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Invalid arguments for tool check: /word must match pattern "^(a+)+$"');
      expect(ms).toBeLessThan(1_000);
    });

    it('validates ordinary patterns as before', async () => {
      const call = (args: Record<string, string>) => client.callTool('check', args);
      expect(firstText(await call({ word: 'aaaa', code: 'ABC-1234' }))).toBe('ok {"word":"aaaa","code":"ABC-1234"}');
      expect(firstText(await call({ code: 'XYZ-0001' }))).toBe('ok {"code":"XYZ-0001"}');
      expect((await call({ code: 'XYZ-01' })).isError).toBe(true);
      const refused = await call({ code: 'abc-1234' });
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toBe('Invalid arguments for tool check: /code must match pattern "^[A-Z]{3}-\\d{4}$"');
    });
  },
);

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
    const app = await mcpApp({
      imports: [McpModule.forRoot({ name: 'patterns', version: '1.0.0', nativeSchemaPatterns: ['^(\\w)\\1$'] })],
      providers: [BackreferenceTools],
    });
    try {
      const client = await createMcpTestClient(app, { revision: '2025-06-18' });
      expect(firstText(await client.callTool('pair', { pair: 'zz' }))).toBe('ok zz');
      expect((await client.callTool('pair', { pair: 'zy' })).isError).toBe(true);
    } finally {
      await app.close();
    }
  });
});
