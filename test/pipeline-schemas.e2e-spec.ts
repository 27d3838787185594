/**
 * Schema kinds of tool inputs and outputs: each is advertised as JSON Schema in tools/list and
 * enforced on tools/call, with readable messages. Over a real socket with the MCP SDK client.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Type } from '@nestjs/common';
import { McpConfigurationError, McpModule, type McpModuleOptions } from '../lib';
import {
  ArrayOutputTools,
  MisspeltKeywordTools,
  MisspeltOutputKeywordTools,
  RESERVE_SCHEMA,
  SchemaTools,
  STATS_OUTPUT,
  StringOutputTools,
  TypedSchemaTools,
  ValidatorOptionTools,
} from './fixtures/pipeline-schemas';
import {
  firstText,
  modernRequest,
  openRawSession,
  startApp,
  startupError,
  type RunningApp,
} from './fixtures/pipeline-app';

describe('tool schemas: advertised as JSON Schema, enforced on calls', () => {
  let running: RunningApp;
  let client: Client;
  let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

  const tool = (name: string) => {
    const found = tools.find((entry) => entry.name === name);
    if (!found) {
      throw new Error(`tool ${name} is not listed`);
    }
    return found;
  };

  beforeAll(async () => {
    running = await startApp({
      imports: [McpModule.forRoot({ name: 'schemas', version: '1.0.0' })],
      providers: [SchemaTools, TypedSchemaTools],
    });
    client = await running.connect();
    ({ tools } = await client.listTools());
  });

  afterAll(async () => {
    await running?.close();
  });

  describe('plain JSON Schema', () => {
    it('is advertised verbatim', () => {
      expect(tool('reserve').inputSchema).toEqual(RESERVE_SCHEMA);
    });

    it('admits valid arguments', async () => {
      const result = await client.callTool({ name: 'reserve', arguments: { sku: 'ABC-12', quantity: 3 } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('reserved 3 x ABC-12');
    });

    it('refuses invalid arguments with an isError result that says what is wrong', async () => {
      const result = await client.callTool({ name: 'reserve', arguments: { sku: 'abc', quantity: 0, gift: true } });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toContain('Invalid arguments for tool reserve');
      expect(text).toContain('/sku must match pattern');
      expect(text).toContain('/quantity must be >= 1');
      expect(text).toContain('must NOT have additional properties "gift"');
    });

    it('refuses missing required arguments', async () => {
      const result = await client.callTool({ name: 'reserve', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain("must have required property 'sku'");
    });
  });

  describe('class-validator DTO with a nested DTO', () => {
    it('is advertised as JSON Schema with the nested class under $defs', () => {
      const schema = tool('ship').inputSchema as Record<string, any>;
      expect(schema.type).toBe('object');
      expect(schema.properties.recipient).toMatchObject({ type: 'string' });
      expect(schema.properties.address.$ref).toBe('#/$defs/AddressDto');
      expect(schema.$defs.AddressDto.properties.city).toMatchObject({ type: 'string', minLength: 2, maxLength: 50 });
      expect(schema.$defs.AddressDto.properties.zip).toMatchObject({ type: 'string', pattern: '^[0-9]{5}$' });
      expect(schema.required).toEqual(expect.arrayContaining(['recipient', 'address']));
    });

    it('admits valid input and hands the method class instances (nested included)', async () => {
      const result = await client.callTool({
        name: 'ship',
        arguments: { recipient: 'Ada', address: { city: 'London', zip: '12345' } },
      });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('ship to Ada, 12345 London (instances: true)');
    });

    it('refuses invalid nested input with the path and the constraint message', async () => {
      const result = await client.callTool({
        name: 'ship',
        arguments: { recipient: 'Ada', address: { city: 'L', zip: 'N1 9GU' }, priority: 0 },
      });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toContain('Invalid arguments for tool ship');
      expect(text).toContain('/address/city: city must be longer than or equal to 2 characters');
      expect(text).toContain('/address/zip: zip must be five digits');
      expect(text).toContain('/priority: priority must not be less than 1');
    });

    it('a missing property reads "is required", once', async () => {
      const result = await client.callTool({
        name: 'ship',
        arguments: { recipient: 'Ada', address: { city: 'London' } },
      });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Invalid arguments for tool ship: /address/zip: zip is required');
    });

    it('refuses a missing nested DTO, which class-validator skips, as the advertised schema requires it', async () => {
      const result = await client.callTool({ name: 'ship', arguments: { recipient: 'Ada' } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe("Invalid arguments for tool ship: must have required property 'address'");
    });

    it('refuses null for an optional property, as the advertised schema does (class-validator would let it through)', async () => {
      expect(tool('ship').inputSchema.required).not.toContain('priority');
      const result = await client.callTool({
        name: 'ship',
        arguments: { recipient: 'Ada', address: { city: 'London', zip: '12345' }, priority: null },
      });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Invalid arguments for tool ship: /priority must be integer');
    });

    it('answers invalid arguments the same way in the modern era', async () => {
      const reply = await modernRequest(running.url(), 'tools/call', {
        name: 'ship',
        arguments: { recipient: 'Ada', address: { city: 'London', zip: '12345' }, priority: null },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.error).toBeUndefined();
      expect(reply.body.result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'Invalid arguments for tool ship: /priority must be integer' }],
      });
    });
  });

  describe('zod 4 (Standard Schema)', () => {
    it('is advertised as JSON Schema', () => {
      const schema = tool('search').inputSchema as Record<string, any>;
      expect(schema.type).toBe('object');
      expect(schema.properties.query).toMatchObject({ type: 'string', minLength: 3, description: 'What to look for' });
      expect(schema.properties.limit).toMatchObject({ type: 'integer', maximum: 50, default: 10 });
      expect(schema.required).toEqual(['query']);
    });

    it('admits valid input, with the parsed value (defaults applied) reaching the method', async () => {
      const result = await client.callTool({ name: 'search', arguments: { query: 'bolts' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('search "bolts" limit 10');
    });

    it("refuses invalid input with zod's messages and paths", async () => {
      const result = await client.callTool({ name: 'search', arguments: { query: 'ab', limit: 100 } });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toContain('Invalid arguments for tool search');
      expect(text).toContain('/query Too small: expected string to have >=3 characters');
      expect(text).toContain('/limit Too big: expected number to be <=50');
    });
  });

  describe('@McpTypedTool (zod input, typed handler)', () => {
    it('is advertised and called like any zod tool', async () => {
      expect(tool('typed_search').inputSchema).toEqual(tool('search').inputSchema);
      const result = await client.callTool({ name: 'typed_search', arguments: { query: 'bolts' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('typed search "bolts" limit 10 (legacy)');
    });

    it('refuses invalid arguments before the handler runs', async () => {
      const result = await client.callTool({ name: 'typed_search', arguments: { query: 'bolts', limit: '5' } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('Invalid arguments for tool typed_search: /limit');
    });
  });

  describe('output schemas', () => {
    it('are advertised as outputSchema', () => {
      expect(tool('stats').outputSchema).toEqual(STATS_OUTPUT);
      expect(tool('forecast').outputSchema).toMatchObject({
        type: 'object',
        properties: { day: { type: 'string' }, celsius: { type: 'number' } },
      });
    });

    it('a valid result is structuredContent, mirrored as JSON text', async () => {
      const result = await client.callTool({ name: 'stats', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ total: 2, skus: ['ABC-1', 'XYZ-2'] });
      expect(JSON.parse(firstText(result))).toEqual({ total: 2, skus: ['ABC-1', 'XYZ-2'] });
    });

    it('a zod output schema works the same way', async () => {
      const result = await client.callTool({ name: 'forecast', arguments: { day: 'monday' } });
      expect(result.structuredContent).toEqual({ day: 'monday', celsius: 21.5 });
      expect(JSON.parse(firstText(result))).toEqual({ day: 'monday', celsius: 21.5 });
    });

    it('output that breaks the schema becomes an isError result, without the invalid data', async () => {
      const session = await openRawSession(running.url());
      const reply = await session.request('tools/call', { name: 'broken_stats', arguments: {} });
      expect(reply.status).toBe(200);
      const result = reply.body.result;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content[0].text).toContain('Invalid output from tool broken_stats');
      expect(result.content[0].text).toContain('/total must be integer');

      // The SDK client accepts the error result (it validates only structured content).
      const viaClient = await client.callTool({ name: 'broken_stats', arguments: {} });
      expect(viaClient.isError).toBe(true);
    });

    it('a tool with an output schema that returns no structured content gets an isError result', async () => {
      const result = await client.callTool({ name: 'text_stats', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toContain('returned no structured content');
    });
  });
});

describe('class-validator options of the module (forRootAsync) and of a tool', () => {
  let running: RunningApp;
  let client: Client;

  beforeAll(async () => {
    running = await startApp({
      imports: [
        McpModule.forRootAsync({
          useFactory: async () => ({
            name: 'validator-options',
            version: '1.0.0',
            validatorOptions: { whitelist: true, forbidNonWhitelisted: true },
          }),
        }),
      ],
      providers: [ValidatorOptionTools],
    });
    client = await running.connect();
  });

  afterAll(async () => {
    await running?.close();
  });

  it('forbidNonWhitelisted: the advertised schema closes the object, the call refuses an unknown property', async () => {
    const { tools } = await client.listTools();
    const order = tools.find((entry) => entry.name === 'order')!;
    expect(order.inputSchema).toMatchObject({ additionalProperties: false, required: ['sku', 'quantity'] });
    const refused = await client.callTool({ name: 'order', arguments: { sku: 'A', quantity: 1, gift: true } });
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toBe('Invalid arguments for tool order: /gift: property gift should not exist');
    const kept = await client.callTool({ name: 'order', arguments: { sku: 'A', quantity: 1, note: 'fragile' } });
    expect(firstText(kept)).toBe('ordered {"sku":"A","quantity":1,"note":"fragile"}');
  });

  it("a tool's own options override the module's: quote strips the unknown property", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((entry) => entry.name === 'quote')!.inputSchema).not.toHaveProperty('additionalProperties');
    const result = await client.callTool({ name: 'quote', arguments: { sku: 'A', quantity: 2, gift: true } });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('quoted {"sku":"A","quantity":2}');
  });
});

describe('an output schema of any root (2026-07-28, SEP-2106)', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({
      imports: [McpModule.forRoot({ name: 'schemas', version: '1.0.0' })],
      providers: [ArrayOutputTools],
    });
  });

  afterAll(async () => {
    await running?.close();
  });

  it('is served to modern clients as structured content, to legacy clients as JSON text', async () => {
    const modern = await modernRequest(running.url(), 'tools/call', { name: 'skus', arguments: {} });
    expect(modern.body).toMatchObject({ result: { structuredContent: ['ABC-1'], content: [{ text: '["ABC-1"]' }] } });
    const session = await openRawSession(running.url());
    const legacy = await session.request('tools/call', { name: 'skus', arguments: {} });
    expect(legacy.body).toMatchObject({ result: { content: [{ type: 'text', text: '["ABC-1"]' }] } });
    expect((legacy.body as { result: object }).result).not.toHaveProperty('structuredContent');
  });
});

describe('schemas that stop the application at startup', () => {
  async function failureWith(providers: Type[], options: Partial<McpModuleOptions> = {}): Promise<Error> {
    const error = await startupError({
      imports: [McpModule.forRoot({ name: 'schemas', version: '1.0.0', ...options })],
      providers,
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    return error;
  }

  it.each<[string, Type, string[]]>([
    [
      'an unknown keyword in an input schema',
      MisspeltKeywordTools,
      ['Invalid input schema of MCP tool "restock"', 'unknown keyword "propertes"', 'MisspeltKeywordTools.restock'],
    ],
    [
      'an unknown keyword in an output schema',
      MisspeltOutputKeywordTools,
      ['Invalid output schema of MCP tool "totals"', 'unknown keyword "requird"', 'MisspeltOutputKeywordTools.totals'],
    ],
    [
      'an output schema whose root is a string schema (every call would fail)',
      StringOutputTools,
      [
        'Invalid output schema of MCP tool "motto"',
        'the root cannot be a string or null schema',
        'StringOutputTools.motto',
      ],
    ],
  ])('%s, naming the tool, its method and the reason', async (_label, provider, fragments) => {
    const error = await failureWith([provider]);
    for (const fragment of fragments) {
      expect(error.message).toContain(fragment);
    }
  });

  it('an output schema whose root is not an object schema, on a server without 2026-07-28', async () => {
    const error = await failureWith([ArrayOutputTools], { revisions: ['2025-06-18', '2025-11-25'] });
    for (const fragment of [
      'Invalid output schema of MCP tool "skus"',
      'the root must be an object schema: the revisions this server serves need one (2026-07-28 takes any)',
      'ArrayOutputTools.skus',
    ]) {
      expect(error.message).toContain(fragment);
    }
  });

  it('module validatorOptions that are not an object, resolved at runtime', async () => {
    const error = await startupError({
      imports: [
        McpModule.forRootAsync({
          useFactory: async () => ({ name: 'schemas', version: '1.0.0', validatorOptions: 'whitelist' as never }),
        }),
      ],
      providers: [ValidatorOptionTools],
    });
    expect(error).toBeInstanceOf(McpConfigurationError);
    expect(error.message).toContain('Invalid McpModule option "validatorOptions": must be an object');
  });
});
