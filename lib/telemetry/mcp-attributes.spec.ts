import type { EngineOutcome, RequestFacts } from '../protocol/engine';
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/messages/json-rpc';
import {
  ATTR,
  isCallerError,
  messageAttributes,
  metricAttributes,
  outcomeAttributes,
  REQUEST_OUTCOME,
  transportAttributes,
} from './mcp-attributes';
import { MethodTable } from '../protocol/methods';
import { extensionMethodEntries } from '../protocol/extension-methods';

const MODERN_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The facts of a message; only what the attributes read is given (the rest is never touched). */
function facts(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return { era: 'legacy', transport: 'stdio', channel: { notify: () => undefined }, ...overrides };
}

const session = (id: string) => ({ id }) as unknown as NonNullable<RequestFacts['session']>;

const request = (method: string, params?: Record<string, unknown>, id: string | number = 7): JSONRPCRequest => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

const notification = (method: string, params?: Record<string, unknown>): JSONRPCNotification => ({
  jsonrpc: '2.0',
  method,
  params,
});

const answer = (result: Record<string, unknown>): EngineOutcome => ({
  type: 'response',
  response: { jsonrpc: '2.0', id: 7, result } as never,
});

const errorAnswer = (code: number, message: string): EngineOutcome => ({
  type: 'response',
  response: { jsonrpc: '2.0', id: 7, error: { code, message } } as never,
});

/** A Node request as a platform hands it over: HTTP version and the socket's peer. */
const nodeRequest = (httpVersion: string, remoteAddress: string, remotePort: number) => ({
  httpVersion,
  headers: { 'x-forwarded-for': '203.0.113.9' },
  socket: { remoteAddress, remotePort },
});

describe('messageAttributes', () => {
  const legacy = facts({ revision: '2025-06-18', session: session('s-1') });

  it('tools/call: `tools/call <tool>`, the tool name and execute_tool, the request id as a string', () => {
    const { spanName, attributes } = messageAttributes(
      legacy,
      request('tools/call', { name: 'echo', arguments: {} }, 7),
    );
    expect(spanName).toBe('tools/call echo');
    expect(attributes).toEqual({
      [ATTR.method]: 'tools/call',
      [ATTR.requestId]: '7',
      [ATTR.toolName]: 'echo',
      [ATTR.operation]: 'execute_tool',
      [ATTR.protocolVersion]: '2025-06-18',
      [ATTR.sessionId]: 's-1',
      [ATTR.networkTransport]: 'pipe',
    });
  });

  it("an extension's method is named as the engine's method table knows it; any other method is _OTHER", () => {
    const known = new MethodTable(
      extensionMethodEntries(
        [{ id: 'com.example/notes-audit' }],
        [{ method: 'notes-audit/entries', extension: 'com.example/notes-audit', handler: () => ({}) }],
      ),
    );
    const message = request('notes-audit/entries', {}, 3);
    const named = messageAttributes(legacy, message, 'socket', (method) => known.isKnown(method));
    expect(named.spanName).toBe('notes-audit/entries');
    expect(named.attributes[ATTR.method]).toBe('notes-audit/entries');
    expect(named.attributes[ATTR.methodOriginal]).toBeUndefined();
    const other = messageAttributes(legacy, message);
    expect(other.attributes[ATTR.method]).toBe('_OTHER');
    expect(other.attributes[ATTR.methodOriginal]).toBe('notes-audit/entries');
  });

  it('prompts/get: `prompts/get <prompt>` and gen_ai.prompt.name, no tool or operation attribute', () => {
    const { spanName, attributes } = messageAttributes(legacy, request('prompts/get', { name: 'greet' }, 'p-1'));
    expect(spanName).toBe('prompts/get greet');
    expect(attributes[ATTR.promptName]).toBe('greet');
    expect(attributes[ATTR.requestId]).toBe('p-1');
    expect(attributes).not.toHaveProperty(ATTR.toolName);
    expect(attributes).not.toHaveProperty(ATTR.operation);
  });

  it.each(['resources/read', 'resources/subscribe', 'resources/unsubscribe'])(
    '%s: the URI is an attribute, never part of the span name',
    (method) => {
      const { spanName, attributes } = messageAttributes(legacy, request(method, { uri: 'file:///a/b.txt' }));
      expect(spanName).toBe(method);
      expect(attributes[ATTR.resourceUri]).toBe('file:///a/b.txt');
      expect(attributes).not.toHaveProperty(ATTR.toolName);
      expect(attributes).not.toHaveProperty(ATTR.promptName);
    },
  );

  it('notifications/resources/updated names its URI too; a notification has no request id', () => {
    const { spanName, attributes } = messageAttributes(
      legacy,
      notification('notifications/resources/updated', { uri: 'mem://x' }),
    );
    expect(spanName).toBe('notifications/resources/updated');
    expect(attributes[ATTR.resourceUri]).toBe('mem://x');
    expect(attributes).not.toHaveProperty(ATTR.requestId);
  });

  it.each([
    ['tools/list', {}],
    ['resources/list', {}],
    ['ping', undefined],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } }],
  ])('%s: the method alone, no gen_ai.* attribute and no URI', (method, params) => {
    const { spanName, attributes } = messageAttributes(legacy, request(method, params));
    expect(spanName).toBe(method);
    expect(Object.keys(attributes).filter((key) => key.startsWith('gen_ai.'))).toEqual([]);
    expect(attributes).not.toHaveProperty(ATTR.resourceUri);
  });

  it('a tools/call without a string name is the method alone, without gen_ai.*', () => {
    const { spanName, attributes } = messageAttributes(legacy, request('tools/call', { name: 42 }));
    expect(spanName).toBe('tools/call');
    expect(attributes).not.toHaveProperty(ATTR.toolName);
    expect(attributes).not.toHaveProperty(ATTR.operation);
  });

  it('a resource URI on a method that does not name a resource is not recorded', () => {
    const { attributes } = messageAttributes(legacy, request('tools/call', { name: 'echo', uri: 'mem://x' }));
    expect(attributes).not.toHaveProperty(ATTR.resourceUri);
  });

  it.each(['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/update'])(
    '%s: the task it names (params.taskId) as mcp.task.id, out of the span name',
    (method) => {
      const { spanName, attributes } = messageAttributes(legacy, request(method, { taskId: 'task_1' }));
      expect(spanName).toBe(method);
      expect(attributes[ATTR.taskId]).toBe('task_1');
    },
  );

  it('a taskId elsewhere is not read: tasks/list, tools/call, a tasks/get without a string id', () => {
    expect(messageAttributes(legacy, request('tasks/list', { taskId: 'task_1' })).attributes).not.toHaveProperty(
      ATTR.taskId,
    );
    expect(
      messageAttributes(legacy, request('tools/call', { name: 'echo', taskId: 'task_1' })).attributes,
    ).not.toHaveProperty(ATTR.taskId);
    expect(messageAttributes(legacy, request('tasks/get', { taskId: 7 })).attributes).not.toHaveProperty(ATTR.taskId);
  });

  it('a null request id is not recorded', () => {
    const { attributes } = messageAttributes(legacy, { jsonrpc: '2.0', id: null, method: 'ping' } as never);
    expect(attributes).not.toHaveProperty(ATTR.requestId);
  });

  describe('the protocol version', () => {
    it("legacy: the session's revision (facts.revision), whatever the params say", () => {
      const { attributes } = messageAttributes(
        facts({ revision: '2025-03-26' }),
        request('tools/list', { _meta: { [MODERN_VERSION_KEY]: '2026-07-28' } }),
      );
      expect(attributes[ATTR.protocolVersion]).toBe('2025-03-26');
    });

    it("legacy initialize: the client's asked version (params.protocolVersion) before the answer", () => {
      const { attributes } = messageAttributes(facts(), request('initialize', { protocolVersion: '2025-11-25' }));
      expect(attributes[ATTR.protocolVersion]).toBe('2025-11-25');
    });

    it('legacy without a revision, not initialize: no version', () => {
      const { attributes } = messageAttributes(facts(), request('tools/list', { protocolVersion: '2025-11-25' }));
      expect(attributes).not.toHaveProperty(ATTR.protocolVersion);
    });

    it('modern: the `_meta` key io.modelcontextprotocol/protocolVersion, before the header', () => {
      const modern = facts({ era: 'modern', transport: 'streamable-http', headers: { 'mcp-protocol-version': 'hdr' } });
      const { attributes } = messageAttributes(
        modern,
        request('tools/list', { _meta: { [MODERN_VERSION_KEY]: '2026-07-28' } }),
      );
      expect(attributes[ATTR.protocolVersion]).toBe('2026-07-28');
    });

    it('modern without the `_meta` key: the MCP-Protocol-Version header; with neither, none', () => {
      const withHeader = facts({
        era: 'modern',
        transport: 'streamable-http',
        headers: { 'mcp-protocol-version': '2026-07-28' },
      });
      expect(messageAttributes(withHeader, request('tools/list', {})).attributes[ATTR.protocolVersion]).toBe(
        '2026-07-28',
      );
      const bare = facts({ era: 'modern', transport: 'stdio' });
      expect(messageAttributes(bare, request('tools/list', {})).attributes).not.toHaveProperty(ATTR.protocolVersion);
    });
  });

  it('no session: no mcp.session.id', () => {
    const { attributes } = messageAttributes(facts({ era: 'modern' }), request('ping'));
    expect(attributes).not.toHaveProperty(ATTR.sessionId);
  });
});

describe('transportAttributes', () => {
  it('stdio: network.transport=pipe only, whatever native request there is', () => {
    expect(
      transportAttributes({ transport: 'stdio', native: { request: nodeRequest('1.1', '127.0.0.1', 1) } }),
    ).toEqual({ [ATTR.networkTransport]: 'pipe' });
  });

  it("HTTP with an Express-like request (the Node request itself): tcp, http, its version and the socket's peer", () => {
    expect(
      transportAttributes({ transport: 'streamable-http', native: { request: nodeRequest('1.1', '10.0.0.5', 51234) } }),
    ).toEqual({
      [ATTR.networkTransport]: 'tcp',
      [ATTR.networkProtocol]: 'http',
      [ATTR.networkProtocolVersion]: '1.1',
      [ATTR.clientAddress]: '10.0.0.5',
      [ATTR.clientPort]: 51234,
    });
  });

  it('HTTP with a Fastify-like request (the Node request as `raw`): the same, read from `raw`', () => {
    const fastifyRequest = { ip: '203.0.113.9', headers: {}, raw: nodeRequest('2.0', '::1', 4000) };
    expect(transportAttributes({ transport: 'simple-http', native: { request: fastifyRequest } })).toEqual({
      [ATTR.networkTransport]: 'tcp',
      [ATTR.networkProtocol]: 'http',
      [ATTR.networkProtocolVersion]: '2.0',
      [ATTR.clientAddress]: '::1',
      [ATTR.clientPort]: 4000,
    });
  });

  it("'platform': the platform's address (Express `req.ip`, Fastify `request.ip`); a forwarded one without the proxy's port", () => {
    const express = Object.assign(nodeRequest('1.1', '10.0.0.5', 51234), { ip: '203.0.113.9' });
    const fastify = { ip: '198.51.100.4', headers: {}, raw: nodeRequest('2.0', '::1', 4000) };
    expect(transportAttributes({ transport: 'streamable-http', native: { request: express } }, 'platform')).toEqual({
      [ATTR.networkTransport]: 'tcp',
      [ATTR.networkProtocol]: 'http',
      [ATTR.networkProtocolVersion]: '1.1',
      [ATTR.clientAddress]: '203.0.113.9',
    });
    expect(transportAttributes({ transport: 'simple-http', native: { request: fastify } }, 'platform')).toEqual({
      [ATTR.networkTransport]: 'tcp',
      [ATTR.networkProtocol]: 'http',
      [ATTR.networkProtocolVersion]: '2.0',
      [ATTR.clientAddress]: '198.51.100.4',
    });
  });

  it("'platform' where the platform gives the socket's peer, or nothing: the socket's peer and port", () => {
    const direct = Object.assign(nodeRequest('1.1', '10.0.0.5', 51234), { ip: '10.0.0.5' });
    const bare = nodeRequest('1.1', '10.0.0.5', 51234);
    for (const request of [direct, bare]) {
      expect(transportAttributes({ transport: 'streamable-http', native: { request } }, 'platform')).toMatchObject({
        [ATTR.clientAddress]: '10.0.0.5',
        [ATTR.clientPort]: 51234,
      });
    }
  });

  it("messageAttributes passes 'platform' on; 'socket' (the default) never reads the platform's address", () => {
    const express = Object.assign(nodeRequest('1.1', '10.0.0.5', 51234), { ip: '203.0.113.9' });
    const http = facts({ transport: 'streamable-http', native: { request: express } });
    expect(messageAttributes(http, request('tools/list'), 'platform').attributes[ATTR.clientAddress]).toBe(
      '203.0.113.9',
    );
    expect(messageAttributes(http, request('tools/list')).attributes[ATTR.clientAddress]).toBe('10.0.0.5');
  });

  it('HTTP without a native request, or one without a socket: tcp and http only', () => {
    const base = { [ATTR.networkTransport]: 'tcp', [ATTR.networkProtocol]: 'http' };
    expect(transportAttributes({ transport: 'sse' })).toEqual(base);
    expect(transportAttributes({ transport: 'sse', native: { request: { headers: {} } } })).toEqual(base);
  });
});

describe('outcomeAttributes', () => {
  it.each([
    ['-32700 parse error', -32700],
    ['-32600 invalid request', -32600],
    ['-32601 method not found', -32601],
    ['-32602 invalid params', -32602],
    ['-32002 resource not found', -32002],
    ['-32020 header mismatch', -32020],
    ['-32021 missing client capability', -32021],
    ['-32022 unsupported protocol version', -32022],
    ['-32003 insufficient scope', -32003],
    ['-32004 access denied', -32004],
    ['-32042 URL elicitation required', -32042],
  ])("the caller's fault (%s): rpc.response.status_code only, no error.type, no error", (_title, code) => {
    expect(isCallerError(code)).toBe(true);
    expect(outcomeAttributes(request('tools/call', { name: 'nope' }), errorAnswer(code, 'Unknown tool: nope'))).toEqual(
      {
        attributes: { [ATTR.statusCode]: String(code) },
      },
    );
  });

  it.each([
    ['-32603 internal error', -32603],
    ['-32000 server error (a stopped call)', -32000],
    ["-32050 an application's own code", -32050],
  ])(
    "the server's fault (%s): its code as error.type and rpc.response.status_code, its message as the error",
    (_title, code) => {
      expect(isCallerError(code)).toBe(false);
      expect(outcomeAttributes(request('resources/read', { uri: 'mem://x' }), errorAnswer(code, 'It broke'))).toEqual({
        attributes: { [ATTR.errorType]: String(code), [ATTR.statusCode]: String(code) },
        error: 'It broke',
      });
    },
  );

  it('a tool result with isError: tool_error, a fixed status message (not the tool output), the result kept', () => {
    const result = { isError: true, content: [{ type: 'text', text: 'secret details' }] };
    const facts = outcomeAttributes(request('tools/call', { name: 'echo' }), answer(result));
    expect(facts.attributes).toEqual({ [ATTR.errorType]: 'tool_error' });
    expect(facts.error).toBe('The tool reported an error');
    expect(facts.error).not.toContain('secret');
    expect(facts.result).toBe(result);
  });

  it('a successful tool call: no attributes, no error, the result kept', () => {
    const result = { content: [{ type: 'text', text: 'ok' }] };
    expect(outcomeAttributes(request('tools/call', { name: 'echo' }), answer(result))).toEqual({
      attributes: {},
      result,
    });
  });

  it("a request answered by nothing ('none'): the outcome cancelled, no error", () => {
    expect(outcomeAttributes(request('tools/call', { name: 'echo' }), { type: 'none' })).toEqual({
      attributes: { [ATTR.requestOutcome]: REQUEST_OUTCOME.cancelled },
    });
    expect(REQUEST_OUTCOME.cancelled).toBe('cancelled');
  });

  it('a listen request answered by nothing (its client closed the stream): the outcome closed, no error', () => {
    expect(outcomeAttributes(request('subscriptions/listen'), { type: 'none' })).toEqual({
      attributes: { [ATTR.requestOutcome]: REQUEST_OUTCOME.closed },
    });
    expect(ATTR.requestOutcome).toBe('nest_mcp.request.outcome');
    expect(REQUEST_OUTCOME.closed).toBe('closed');
  });

  it("a notification ('none' is normal): nothing", () => {
    expect(outcomeAttributes(notification('notifications/initialized'), { type: 'none' })).toEqual({ attributes: {} });
  });

  it("initialize: the negotiated version from the answer, not the client's ask", () => {
    const facts = outcomeAttributes(
      request('initialize', { protocolVersion: '2099-01-01' }),
      answer({ protocolVersion: '2025-06-18' }),
    );
    expect(facts).toEqual({ attributes: { [ATTR.protocolVersion]: '2025-06-18' } });
  });

  it('another successful request: nothing', () => {
    expect(outcomeAttributes(request('tools/list'), answer({ tools: [] }))).toEqual({ attributes: {} });
  });
});

describe('metricAttributes', () => {
  it('keeps the low-cardinality attributes and drops ids, the session, addresses and URIs', () => {
    const all = {
      ...messageAttributes(
        facts({
          era: 'legacy',
          transport: 'streamable-http',
          revision: '2025-11-25',
          session: session('s-9'),
          native: { request: nodeRequest('1.1', '10.0.0.5', 5555) },
        }),
        request('tools/call', { name: 'echo' }, 'r-1'),
      ).attributes,
      [ATTR.resourceUri]: 'mem://x',
      [ATTR.errorType]: '-32603',
      [ATTR.statusCode]: '-32603',
      [ATTR.requestOutcome]: 'cancelled',
      [ATTR.promptName]: 'greet',
    };
    expect(metricAttributes(all)).toEqual({
      [ATTR.method]: 'tools/call',
      [ATTR.protocolVersion]: '2025-11-25',
      [ATTR.toolName]: 'echo',
      [ATTR.promptName]: 'greet',
      [ATTR.operation]: 'execute_tool',
      [ATTR.networkTransport]: 'tcp',
      [ATTR.networkProtocol]: 'http',
      [ATTR.networkProtocolVersion]: '1.1',
      [ATTR.errorType]: '-32603',
      [ATTR.statusCode]: '-32603',
      [ATTR.requestOutcome]: 'cancelled',
    });
  });

  it("keeps the server's name, drops the task id", () => {
    expect(
      metricAttributes({ [ATTR.method]: 'tasks/get', [ATTR.taskId]: 'task_1', [ATTR.serverName]: 'admin' }),
    ).toEqual({ [ATTR.method]: 'tasks/get', [ATTR.serverName]: 'admin' });
  });

  it('adds nothing that is not there', () => {
    expect(metricAttributes({ [ATTR.method]: 'ping', [ATTR.requestId]: '1' })).toEqual({ [ATTR.method]: 'ping' });
  });

  it('drops a tool or prompt name the server does not have', () => {
    const guessed = { [ATTR.method]: 'tools/call', [ATTR.toolName]: 'guess-1', [ATTR.operation]: 'execute_tool' };
    expect(metricAttributes(guessed, true)).toEqual({ [ATTR.method]: 'tools/call', [ATTR.operation]: 'execute_tool' });
    expect(metricAttributes({ [ATTR.method]: 'prompts/get', [ATTR.promptName]: 'guess-2' }, true)).toEqual({
      [ATTR.method]: 'prompts/get',
    });
  });

  it('names the target of a tool call or prompt, and nothing else', () => {
    const base = facts({ era: 'modern', transport: 'stdio' });
    expect(messageAttributes(base, request('tools/call', { name: 'echo' }, 1)).name).toBe('echo');
    expect(messageAttributes(base, request('prompts/get', { name: 'greet' }, 1)).name).toBe('greet');
    expect(messageAttributes(base, request('resources/read', { uri: 'mem://x' }, 1)).name).toBeUndefined();
  });
});

describe('ATTR', () => {
  it("keeps the module's own names out of the conventions' mcp.* namespace; mcp.task.id is the proposed one", () => {
    expect({
      taskId: ATTR.taskId,
      taskStatus: ATTR.taskStatus,
      taskStatusMessage: ATTR.taskStatusMessage,
      streamKind: ATTR.streamKind,
      methodOriginal: ATTR.methodOriginal,
      protocolVersionOriginal: ATTR.protocolVersionOriginal,
      serverName: ATTR.serverName,
    }).toEqual({
      taskId: 'mcp.task.id',
      taskStatus: 'nest_mcp.task.status',
      taskStatusMessage: 'nest_mcp.task.status_message',
      streamKind: 'nest_mcp.stream.kind',
      methodOriginal: 'nest_mcp.method.name_original',
      protocolVersionOriginal: 'nest_mcp.protocol.version_original',
      serverName: 'nest_mcp.server.name',
    });
  });
});
