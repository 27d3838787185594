/**
 * Global enhancers (APP_GUARD, APP_INTERCEPTOR, APP_PIPE = ValidationPipe, APP_FILTER) on MCP
 * calls, over a real socket with the MCP SDK client.
 */
import { McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpModule } from '../lib';
import { GLOBAL_ENHANCER_PROVIDERS, GlobalProbe } from './fixtures/pipeline-global';
import { UpperCaseInterceptor } from './fixtures/pipeline-enhancers';
import { firstText, startApp, type RunningApp } from './fixtures/pipeline-app';

/** The JSON-RPC error of a refused request, as the SDK client reports it (its message without the SDK's prefix). */
async function accessDenied(promise: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  const error = await promise.then(
    (value) => {
      throw new Error(`Expected a JSON-RPC error, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SdkMcpError);
  const { code, message, data } = error as SdkMcpError;
  return { code, message: message.replace(/^MCP error -?\d+: /, ''), data };
}

describe('global enhancers on MCP calls', () => {
  let running: RunningApp;
  let client: Client;
  let probe: GlobalProbe;

  beforeAll(async () => {
    running = await startApp({
      imports: [McpModule.forRoot({ name: 'global-enhancers', version: '1.0.0' })],
      providers: [...GLOBAL_ENHANCER_PROVIDERS, UpperCaseInterceptor],
    });
    client = await running.connect({ headers: { 'x-probe': 'probe-42' } });
    probe = running.app.get(GlobalProbe);
  });

  afterAll(async () => {
    await running?.close();
  });

  describe('APP_GUARD', () => {
    it('runs on every tool call with context type "mcp", and McpExecutionContext exposes args, context and request', async () => {
      probe.guard.length = 0;
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(result.isError).toBeFalsy();
      const mcpCalls = probe.guard.filter((entry) => entry.type === 'mcp');
      expect(mcpCalls).toEqual([
        {
          type: 'mcp',
          args: { text: 'hi' },
          name: 'echo',
          method: 'tools/call',
          probeHeader: 'probe-42',
          handler: 'echo',
          className: 'GlobalTools',
          requestIsHttpRequest: true,
        },
      ]);
    });

    it('runs once per call, never on the HTTP route of the endpoint, which the module serves itself', async () => {
      probe.guard.length = 0;
      await client.callTool({ name: 'echo', arguments: { text: 'once' } });
      expect(probe.guard.map((entry) => entry.type)).toEqual(['mcp']);
    });

    it('denies a tool call: the access-denied error (-32004, status 403), and the tool never runs', async () => {
      const before = probe.runs.echo ?? 0;
      const denied = await accessDenied(client.callTool({ name: 'echo', arguments: { text: 'hi', blocked: true } }));
      expect(denied).toEqual({ code: -32004, message: 'Forbidden resource', data: { status: 403 } });
      expect(probe.runs.echo ?? 0).toBe(before);

      const byName = await accessDenied(client.callTool({ name: 'blocked_tool', arguments: {} }));
      expect(byName).toEqual({ code: -32004, message: 'Forbidden resource', data: { status: 403 } });
      expect(probe.runs.blocked_tool).toBeUndefined();
    });

    it('reads handler metadata through Reflector (a role requirement)', async () => {
      const anonymous = await accessDenied(client.callTool({ name: 'audit_report', arguments: {} }));
      expect(anonymous.code).toBe(-32004);
      expect(probe.runs.audit_report).toBeUndefined();

      const auditor = await running.connect({ headers: { 'x-role': 'auditor' } });
      const allowed = await auditor.callTool({ name: 'audit_report', arguments: {} });
      expect(allowed.isError).toBeFalsy();
      expect(firstText(allowed)).toBe('audit: all good [global]');
    });

    it('applies to resource reads too: allowed with the URI as args, denied as the access-denied error', async () => {
      probe.guard.length = 0;
      const status = await client.readResource({ uri: 'global://status' });
      expect(status.contents).toEqual([{ uri: 'global://status', mimeType: 'text/plain', text: 'green' }]);
      expect(probe.guard.find((entry) => entry.type === 'mcp')).toMatchObject({
        args: { uri: 'global://status' },
        name: 'global://status',
        method: 'resources/read',
      });

      const error = await client.readResource({ uri: 'global://blocked' }).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(SdkMcpError);
      expect((error as SdkMcpError).code).toBe(-32004);
      expect((error as SdkMcpError).message).toContain('Forbidden resource');
      expect(probe.runs.blockedResource).toBeUndefined();
    });
  });

  describe('APP_INTERCEPTOR', () => {
    it('maps the result of every tool', async () => {
      const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
      expect(firstText(result)).toBe('hello [global]');
    });

    it('wraps method interceptors (global first, then method)', async () => {
      const result = await client.callTool({ name: 'shout_global', arguments: { text: 'quiet' } });
      expect(firstText(result)).toBe('QUIET [global]');
    });

    it('sees the context type "mcp" for calls, and never the endpoint route', async () => {
      probe.interceptorTypes.length = 0;
      await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      expect(probe.interceptorTypes).toEqual(['mcp']);
    });
  });

  describe('APP_PIPE: ValidationPipe with a class-validator DTO parameter', () => {
    it('admits a valid DTO and transforms it into an instance', async () => {
      const result = await client.callTool({ name: 'create_item', arguments: { name: 'bolt', quantity: 3 } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('true:boltx3 [global]');
    });

    it('refuses invalid input with an isError result listing the validation messages', async () => {
      const before = probe.runs.create_item ?? 0;
      const result = await client.callTool({ name: 'create_item', arguments: { name: '', quantity: 0 } });
      expect(result.isError).toBe(true);
      const text = firstText(result);
      expect(text).toContain('name should not be empty');
      expect(text).toContain('quantity must not be less than 1');
      expect(probe.runs.create_item ?? 0).toBe(before);
    });

    it('validates the DTO of a method without parameter decorators', async () => {
      const ok = await client.callTool({ name: 'create_item_plain', arguments: { name: 'nut', quantity: 2 } });
      expect(firstText(ok)).toBe('true:nutx2 via tools/call [global]');

      const before = probe.runs.create_item_plain ?? 0;
      const bad = await client.callTool({ name: 'create_item_plain', arguments: { name: 'nut', quantity: 'two' } });
      expect(bad.isError).toBe(true);
      expect(firstText(bad)).toContain('quantity must be an integer number');
      expect(probe.runs.create_item_plain ?? 0).toBe(before);
    });

    it('a ValidationPipe given on @McpArgs() with validateCustomDecorators validates', async () => {
      const ok = await client.callTool({ name: 'create_item_local_pipe', arguments: { name: 'pin', quantity: 7 } });
      expect(firstText(ok)).toBe('true:pinx7 [global]');
      const before = probe.runs.create_item_local_pipe ?? 0;
      const bad = await client.callTool({ name: 'create_item_local_pipe', arguments: { name: 'pin', quantity: 0 } });
      expect(bad.isError).toBe(true);
      expect(firstText(bad)).toBe('quantity must not be less than 1');
      expect(probe.runs.create_item_local_pipe ?? 0).toBe(before);
    });

    it("with the DTO as input schema too, the schema's check answers first with a readable message", async () => {
      const bad = await client.callTool({ name: 'create_item_schema', arguments: { name: 'washer', quantity: -1 } });
      expect(bad.isError).toBe(true);
      expect(firstText(bad)).toContain('Invalid arguments for tool create_item_schema');
      expect(firstText(bad)).toContain('quantity must not be less than 1');

      const ok = await client.callTool({ name: 'create_item_schema', arguments: { name: 'washer', quantity: 5 } });
      expect(firstText(ok)).toBe('washerx5 (create_item_schema) [global]');
    });
  });

  describe('APP_FILTER', () => {
    it("catches a tool's domain error; its return value is the result and internal detail stays out", async () => {
      const result = await client.callTool({ name: 'quota', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Quota exceeded, retry in 60s');
      expect(JSON.stringify(result)).not.toContain('8812');
    });
  });
});
