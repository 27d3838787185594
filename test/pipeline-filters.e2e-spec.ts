/**
 * What a client gets from an exception filter in the `mcp` context, as the README states it
 * ("Exception filters on MCP calls"): a global catch-all filter that returns a value (the call's
 * result), throws an HttpException (a client-facing error), throws McpError (that JSON-RPC
 * error) or McpToolError (a tool error), or returns undefined (not handled); its HTTP branch
 * still answers the application's own routes.
 */
import { type INestApplication, Logger } from '@nestjs/common';
import request from 'supertest';
import { McpModule } from '../lib';
import { createMcpTestClient, type McpTestClient } from 'nest-mcp/testing';
import { FILTER_APP, FilterProbe, QUOTA_EXCEEDED } from './fixtures/pipeline-filters';
import { compileApp, firstText } from './fixtures/pipeline-app';

describe('exception filters on MCP calls (a global catch-all filter)', () => {
  let app: INestApplication;
  let client: McpTestClient;
  let modern: McpTestClient;
  let probe: FilterProbe;

  beforeAll(async () => {
    app = await compileApp({ imports: [McpModule.forRoot({ name: 'filters', version: '1.0.0' })], ...FILTER_APP });
    client = await createMcpTestClient(app, { revision: '2025-11-25' });
    modern = await createMcpTestClient(app);
    probe = app.get(FilterProbe);
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  describe('the filter returns a value', () => {
    it('a tool call succeeds with it, rendered as a handler result', async () => {
      const before = probe.types.length;
      const result = await client.callTool('reserve', { sku: 'A-1' });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'Out of stock: A-1, back next week' }]);
      expect(probe.types.slice(before)).toEqual(['mcp']);
    });

    it("it is checked against the tool's output schema like a handler result", async () => {
      const result = await client.callTool('typed_reserve');
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Tool typed_reserve returned no structured content');
    });

    it('a resource read answers it as the contents', async () => {
      const result = await client.readResource('stock://levels');
      expect(result.contents).toEqual([{ uri: 'stock://levels', text: 'Out of stock: ALL, back next week' }]);
    });
  });

  describe('the filter throws an HttpException', () => {
    it('a tool answers isError: true with its message', async () => {
      const result = await client.callTool('reserve', { sku: 'X-9' });
      expect(result).toEqual({ content: [{ type: 'text', text: 'No product X-9' }], isError: true });
    });

    it('a resource template answers the JSON-RPC error of its status (404: resource not found)', async () => {
      await expect(client.readResource('stock://items/X-7')).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining('No product X-7'),
      });
    });

    it('the same in the modern era: -32602 with HTTP 400', async () => {
      await expect(modern.readResource('stock://items/X-8')).rejects.toMatchObject({
        status: 400,
        code: -32602,
        message: 'No product X-8',
        data: undefined,
      });
    });
  });

  describe('the filter throws McpError or McpToolError', () => {
    it('McpError from a tool is answered as exactly that JSON-RPC error, in both eras', async () => {
      const error = { status: 200, code: QUOTA_EXCEEDED, message: 'Quota exceeded', data: { retryAfterSec: 60 } };
      for (const each of [client, modern]) {
        await expect(each.callTool('search')).rejects.toMatchObject({ name: 'McpTestError', ...error });
      }
    });

    it('McpError from a prompt likewise', async () => {
      await expect(client.getPrompt('restock_plan')).rejects.toMatchObject({
        code: QUOTA_EXCEEDED,
        data: { retryAfterSec: 5 },
      });
    });

    it('McpToolError is a tool error with its message, and nothing of the original error', async () => {
      const result = await client.callTool('reorder');
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'The supplier is down; try another one' }]);
      expect(JSON.stringify(result)).not.toContain('ECONNRESET');
    });
  });

  describe('the filter returns undefined', () => {
    it('the error is handled as without a filter: logged once, a generic error that leaks nothing', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error');
      try {
        const result = await client.callTool('broken');
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: 'Internal tool error' }]);
        expect(JSON.stringify(result)).not.toContain('inventory.service');
        // One line, by the engine, with the call and the stack; not Nest's "ExceptionsHandler" line too.
        expect(logged.mock.calls).toEqual([
          [
            expect.stringMatching(/^tools\/call broken failed \(request \S+, principal anonymous\): bug at inventory/),
            expect.stringContaining('Error: bug at inventory.service.ts:42\n    at FilteredTools.broken'),
          ],
        ]);
      } finally {
        logged.mockRestore();
      }
    });
  });

  it("the filter's HTTP branch still answers the application's own routes", async () => {
    const before = probe.types.length;
    const response = await request(app.getHttpServer()).get('/orders/7');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ statusCode: 404, message: 'from the HTTP branch' });
    expect(probe.types.slice(before)).toEqual(['http']);
  });
});
