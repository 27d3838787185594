/**
 * Guards, interceptors, pipes and exception filters bound to MCP handlers with Nest's own
 * decorators, exercised by an MCP SDK client over a real socket.
 *
 * Fastify is not in the adapter column yet: the module does not start on Fastify (see the
 * Fastify block of pipeline-scope.e2e-spec.ts). Add 'fastify' below once it does.
 */
import { rpcError } from './fixtures/sdk-errors';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpModule } from '../lib';
import { ENHANCER_PROVIDERS, EnhancerProbe } from './fixtures/pipeline-enhancers';
import {
  firstText,
  modernRequest,
  openRawSession,
  startApp,
  type Adapter,
  type RunningApp,
} from './fixtures/pipeline-app';

/** `McpErrorCode.AccessDenied`: a guard refused the call (a 401 or 403 HttpException). */
const ACCESS_DENIED = -32004;

describe.each<Adapter>(['express'])('Nest enhancers on MCP handlers (%s)', (adapter) => {
  let running: RunningApp;
  let client: Client;
  let probe: EnhancerProbe;

  beforeAll(async () => {
    running = await startApp(
      {
        imports: [McpModule.forRoot({ name: 'enhancers', version: '1.0.0' })],
        providers: ENHANCER_PROVIDERS,
      },
      { adapter },
    );
    client = await running.connect();
    probe = running.app.get(EnhancerProbe);
  });

  afterAll(async () => {
    await running?.close();
  });

  describe('guards', () => {
    it('a method guard that denies gives the access-denied error (-32004, status 403), and the method never runs', async () => {
      const error = await rpcError(client.callTool({ name: 'denied_tool', arguments: {} }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Forbidden resource');
      expect(error.data).toEqual({ status: 403 });
      expect(probe.count('denied_tool')).toBe(0);
    });

    it('the denial is a 200 JSON-RPC error over HTTP, not a tool result, a 403 or a 500', async () => {
      const session = await openRawSession(running.url());
      const reply = await session.request('tools/call', { name: 'denied_tool', arguments: {} });
      expect(reply.status).toBe(200);
      expect(reply.body.result).toBeUndefined();
      expect(reply.body.error).toEqual({ code: ACCESS_DENIED, message: 'Forbidden resource', data: { status: 403 } });
    });

    it('a guard that allows lets the call through and sees an mcp context with the call arguments', async () => {
      const before = probe.contexts.length;
      const result = await client.callTool({ name: 'allowed_tool', arguments: { note: 'ok' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('allowed ok');
      expect(probe.contexts.slice(before)).toEqual([
        { type: 'mcp', handler: 'allowed_tool', args: { note: 'ok' }, name: 'allowed_tool' },
      ]);
    });

    it('a guard reading the HTTP request decides per caller', async () => {
      const denied = await rpcError(client.callTool({ name: 'admin_tool', arguments: {} }));
      expect(denied.code).toBe(ACCESS_DENIED);
      expect(probe.count('admin_tool')).toBe(0);

      const admin = await running.connect({ headers: { 'x-role': 'admin' } });
      const allowed = await admin.callTool({ name: 'admin_tool', arguments: {} });
      expect(allowed.isError).toBeFalsy();
      expect(firstText(allowed)).toBe('admin area');
      expect(probe.count('admin_tool')).toBe(1);
    });

    it('a guard that throws UnauthorizedException gives the access-denied error with its message and status 401', async () => {
      const error = await rpcError(client.callTool({ name: 'expired_tool', arguments: {} }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Token expired, sign in again');
      expect(error.data).toEqual({ status: 401 });
      expect(probe.count('expired_tool')).toBe(0);
    });

    it('a guard answering with an Observable<false> denies', async () => {
      const error = await rpcError(client.callTool({ name: 'async_denied_tool', arguments: {} }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Forbidden resource');
      expect(probe.count('async_denied_tool')).toBe(0);
    });

    it('a guard on the class applies to its tools', async () => {
      const error = await rpcError(client.callTool({ name: 'class_guarded_tool', arguments: {} }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Forbidden resource');
      expect(probe.count('class_guarded_tool')).toBe(0);
    });

    it("a filter can catch a guard's denial and answer instead", async () => {
      const result = await client.callTool({ name: 'politely_denied_tool', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('You may not do this, but thanks for asking');
      expect(probe.count('politely_denied_tool')).toBe(0);
    });

    it('a guard that denies a resource read gives the access-denied error, not content', async () => {
      const error = await rpcError(client.readResource({ uri: 'guarded://secret' }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Forbidden resource');
      expect(error.data).toEqual({ status: 403 });
      expect(probe.count('secret')).toBe(0);
    });

    it('a guard that denies a resource template read gives the access-denied error', async () => {
      const error = await rpcError(client.readResource({ uri: 'guarded://vault/42' }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.message).toContain('Forbidden resource');
      expect(probe.count('vault_item')).toBe(0);
    });

    it('a denied resource read is a 200 JSON-RPC error over HTTP', async () => {
      const session = await openRawSession(running.url());
      const reply = await session.request('resources/read', { uri: 'guarded://secret' });
      expect(reply.status).toBe(200);
      expect(reply.body.result).toBeUndefined();
      expect(reply.body.error).toEqual({ code: ACCESS_DENIED, message: 'Forbidden resource', data: { status: 403 } });
    });

    it('a guard that allows a resource read sees the URI as the call arguments', async () => {
      const before = probe.contexts.length;
      const result = await client.readResource({ uri: 'guarded://public' });
      expect(result.contents).toEqual([{ uri: 'guarded://public', mimeType: 'text/plain', text: 'public content' }]);
      expect(probe.contexts.slice(before)).toEqual([
        { type: 'mcp', handler: 'public_resource', args: { uri: 'guarded://public' }, name: 'guarded://public' },
      ]);
    });

    it('a guard that denies a prompt gives the access-denied error', async () => {
      const error = await rpcError(client.getPrompt({ name: 'guarded_prompt', arguments: { topic: 'x' } }));
      expect(error.code).toBe(ACCESS_DENIED);
      expect(error.data).toEqual({ status: 403 });
      expect(error.message).toContain('Forbidden resource');
      expect(probe.count('guarded_prompt')).toBe(0);
    });

    it('a guard that allows a prompt lets it render', async () => {
      const result = await client.getPrompt({ name: 'open_prompt', arguments: { topic: 'owls' } });
      expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write about owls' } }]);
    });
  });

  describe('interceptors', () => {
    it('an interceptor maps the result', async () => {
      const result = await client.callTool({ name: 'shout', arguments: { text: 'hello' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('HELLO!');
    });

    it('an interceptor may turn the value of an async handler into a full result with _meta', async () => {
      const result = await client.callTool({ name: 'enveloped', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'wrapped({"answer":42})' }]);
      expect(result._meta).toEqual({ 'e2e.test/tool': 'enveloped', 'e2e.test/contextType': 'mcp' });
    });

    it('an interceptor may answer without calling the handler', async () => {
      const result = await client.callTool({ name: 'expensive', arguments: {} });
      expect(firstText(result)).toBe('served from cache');
      expect(probe.count('expensive')).toBe(0);
    });

    it('interceptors nest in declaration order (the first is outermost)', async () => {
      const result = await client.callTool({ name: 'layered', arguments: {} });
      expect(firstText(result)).toBe('wrapped("INNER")');
    });
  });

  describe('pipes on @McpArgs()', () => {
    it('ParseIntPipe transforms a valid value', async () => {
      const result = await client.callTool({ name: 'double', arguments: { count: '21' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('number:42');
    });

    it("ParseIntPipe refuses a bad value: an isError result with the pipe's message", async () => {
      const result = await client.callTool({ name: 'double', arguments: { count: 'twenty' } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Validation failed (numeric string is expected)');
    });

    it('an instance pipe on the whole arguments transforms them', async () => {
      const result = await client.callTool({ name: 'full_name', arguments: { first: '  Ada ', last: ' Lovelace  ' } });
      expect(firstText(result)).toBe('[Ada Lovelace]');
    });

    it('a DI-resolved class pipe validates and its BadRequestException message reaches the client', async () => {
      expect(firstText(await client.callTool({ name: 'open_page', arguments: { slug: 'about-us' } }))).toBe(
        'page about-us',
      );
      const reserved = await client.callTool({ name: 'open_page', arguments: { slug: 'admin' } });
      expect(reserved.isError).toBe(true);
      expect(firstText(reserved)).toBe('The slug "admin" is reserved');
      const malformed = await client.callTool({ name: 'open_page', arguments: { slug: 'Not A Slug' } });
      expect(malformed.isError).toBe(true);
      expect(firstText(malformed)).toBe('"Not A Slug" is not a slug');
    });
  });

  describe('exception filters and errors', () => {
    it("@UseFilters catches a tool's error and its return value becomes the result", async () => {
      const result = await client.callTool({ name: 'reserve', arguments: { sku: 'ABC-1' } });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('ABC-1 is out of stock; try again tomorrow (host: mcp)');
    });

    it('a filter that returns a plain value recovers: the call succeeds with it', async () => {
      const result = await client.callTool({ name: 'order', arguments: { sku: 'XYZ-9' } });
      expect(result.isError).toBeFalsy();
      expect(firstText(result)).toBe('backordered XYZ-9');
    });

    it.each(['leaky', 'leaky_async'])(
      'an unhandled plain error from %s gives a generic isError result and leaks nothing',
      async (name) => {
        const session = await openRawSession(running.url());
        const reply = await session.request('tools/call', { name, arguments: {} });
        expect(reply.status).toBe(200);
        expect(reply.body.result).toEqual({ content: [{ type: 'text', text: 'Internal tool error' }], isError: true });
        const raw = JSON.stringify(reply.body);
        for (const secret of ['hunter2', 'postgres', 'ECONNREFUSED', 'secretKey', 'TypeError', 'at ']) {
          expect(raw).not.toContain(secret);
        }
      },
    );

    it('the server keeps serving after unhandled errors', async () => {
      await client.callTool({ name: 'leaky', arguments: {} });
      expect(firstText(await client.callTool({ name: 'shout', arguments: { text: 'still here' } }))).toBe(
        'STILL HERE!',
      );
    });

    it('a 4xx HttpException thrown by a tool gives an isError result with its message', async () => {
      const result = await client.callTool({ name: 'missing_widget', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('No widget 7');
    });

    it("a 5xx HttpException's message is not passed on", async () => {
      const result = await client.callTool({ name: 'server_exception', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Internal error');
      expect(JSON.stringify(result)).not.toContain('db-internal-3');
    });

    it('an McpError thrown by a tool is answered as that JSON-RPC error', async () => {
      const error = await rpcError(client.callTool({ name: 'protocol_error', arguments: {} }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('Unknown warehouse');
      expect(error.data).toEqual({ warehouse: 'x' });
    });

    it('an McpToolError thrown by a tool is an isError result with its message', async () => {
      const result = await client.callTool({ name: 'tool_error', arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe('Tool tool_error says: pick another date');
    });

    it('a NotFoundException from a resource is the resource-not-found error with its message', async () => {
      const error = await rpcError(client.readResource({ uri: 'failing://missing' }));
      expect(error.code).toBe(-32002);
      expect(error.message).toContain('That document was archived');
    });

    it('a plain error from a resource is a generic internal error', async () => {
      const error = await rpcError(client.readResource({ uri: 'failing://broken' }));
      expect(error.code).toBe(-32603);
      expect(error.message).toContain('Internal resource error');
      expect(error.message).not.toContain('sda1');
    });

    it('a BadRequestException from a prompt is Invalid params with its message', async () => {
      const error = await rpcError(client.getPrompt({ name: 'picky_prompt', arguments: { tone: 'casual' } }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('tone must be "formal"');
      const ok = await client.getPrompt({ name: 'picky_prompt', arguments: { tone: 'formal' } });
      expect(ok.messages[0].content).toEqual({ type: 'text', text: 'Dear reader' });
    });

    it('a plain error from a prompt is a generic internal error', async () => {
      const error = await rpcError(client.getPrompt({ name: 'broken_prompt', arguments: {} }));
      expect(error.code).toBe(-32603);
      expect(error.message).not.toContain('/srv/prompts');
    });
  });
  describe('the same pipeline in the modern era (2026-07-28, no session)', () => {
    it('a denying guard gives the access-denied error (HTTP 200), not a tool result', async () => {
      const reply = await modernRequest(running.url(), 'tools/call', { name: 'denied_tool', arguments: {} });
      expect(reply.status).toBe(200);
      expect(reply.body.result).toBeUndefined();
      expect(reply.body.error).toEqual({ code: ACCESS_DENIED, message: 'Forbidden resource', data: { status: 403 } });
      expect(probe.count('denied_tool')).toBe(0);
    });

    it('an allowing guard and an interceptor run as in the legacy era', async () => {
      const reply = await modernRequest(running.url(), 'tools/call', { name: 'shout', arguments: { text: 'modern' } });
      expect(reply.status).toBe(200);
      expect(reply.body.result.content).toEqual([{ type: 'text', text: 'MODERN!' }]);
    });

    it('a denying guard on a resource gives the access-denied error', async () => {
      const reply = await modernRequest(running.url(), 'resources/read', { uri: 'guarded://secret' });
      expect(reply.body.result).toBeUndefined();
      expect(reply.body.error).toEqual({ code: ACCESS_DENIED, message: 'Forbidden resource', data: { status: 403 } });
      expect(reply.status).toBeLessThan(500);
    });

    it('a NotFoundException from a resource is Invalid params (-32602, HTTP 400) in the modern era', async () => {
      const reply = await modernRequest(running.url(), 'resources/read', { uri: 'failing://missing' });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ code: -32602, message: 'That document was archived' });
    });

    it('a filter still turns the error into the result', async () => {
      const reply = await modernRequest(running.url(), 'tools/call', { name: 'order', arguments: { sku: 'M-1' } });
      expect(reply.body.result.content).toEqual([{ type: 'text', text: 'backordered M-1' }]);
    });
  });
});
