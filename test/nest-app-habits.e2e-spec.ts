/**
 * Issue 36, "Done means": one application with the habits a usual Nest application has (a global
 * `AuthGuard('jwt')` with `@Public()`, a global ThrottlerGuard, the documentation's
 * `AllExceptionsFilter`, a global logging interceptor; see test/fixtures/habits-app.ts) and two
 * MCP servers, on Express and Fastify:
 * - `public` (no `include`, no `auth`) serves only the handlers no server claims, in both eras;
 * - `admin` (`include: [AdminModule]`, the app's JWT guard as its `auth.guard`) answers a request
 *   without a token with 401, a JSON-RPC body and a challenge; with one, the tool sees `req.user`
 *   as its principal;
 * - the app's global guards and interceptor run once around each call (context type `'mcp'`) and
 *   never on the transport's own routes;
 * - a guard refusal inside a call is the JSON-RPC error -32004, not an `isError` result;
 * - a throwing tool answers -32603 on every transport, whatever the catch-all filter writes, and
 *   the log names the filter once.
 */
import {
  Client as ModernClient,
  ProtocolError,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SignJWT } from 'jose';
import { McpErrorCode } from 'nest-mcp';
import { EnhancerRuns, HabitsAppModule, JWT_SECRET, PUBLIC_PATHS } from './fixtures/habits-app';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  answerOf,
  exchange,
  legacyRequest,
  MODERN_REVISION,
  modernHeaders,
  modernRequest,
  post,
  type RawResponse,
  toolText,
} from './fixtures/raw-rpc';
import { RecordingLogger } from './fixtures/recording-logger';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
/** The tools of the public server: its own module's, whatever their class's marks. */
const PUBLIC_TOOLS = ['boom', 'echo', 'secret_note'];
const USER = { sub: 'user-42', username: 'ada' } as const;

/** A token the app's JWT strategy accepts, for {@link USER}. */
function signToken(): Promise<string> {
  return new SignJWT({ username: USER.username })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(USER.sub)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

/** A modern (2026-07-28) `tools/call` POST, without a session. */
function callModern(url: URL, name: string, headers: Record<string, string> = {}, id = 1): Promise<RawResponse> {
  return exchange(url, {
    body: modernRequest('tools/call', { name, arguments: { text: 'hi' } }, id),
    headers: { ...modernHeaders('tools/call', name), ...headers },
  });
}

/** The v1 client (legacy era) connected over `transport`; closed after the test. */
async function legacyClient(transport: Transport, opened: Array<{ close(): Promise<void> }>): Promise<Client> {
  const client = new Client({ name: 'habits-v1', version: '1.0.0' });
  opened.push(client);
  await client.connect(transport);
  return client;
}

/** The v2 client pinned to the modern revision; closed after the test. */
async function modernClient(url: URL, opened: Array<{ close(): Promise<void> }>): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'habits-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
  );
  opened.push(client);
  await client.connect(new ModernTransport(url));
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

/** How a call ended: its JSON-RPC error code, its result (text, isError), or what else came back. */
type Outcome = { error: number } | { text: string; isError: boolean } | { other: string };

const DENIED: Outcome = { error: McpErrorCode.AccessDenied };
const CRASHED: Outcome = { error: McpErrorCode.InternalError };

/** The outcome of a raw POST (JSON or SSE): the filter's `{"statusCode":500}` shows as `other`. */
function outcomeOf(response: RawResponse): Outcome {
  const message = answerOf(response);
  if (message.error !== undefined) {
    return { error: message.error.code };
  }
  if (message.result !== undefined) {
    return { text: toolText(message), isError: message.result.isError === true };
  }
  return { other: `HTTP ${response.status} ${response.text}` };
}

/** The outcome of a client's `callTool` (or of its connecting): a rejection with a JSON-RPC code, or the result. */
async function outcomeOfCall(call: Promise<unknown>): Promise<Outcome> {
  try {
    const result = (await call) as { content: Array<{ text?: string }>; isError?: boolean };
    return { text: String(result.content[0]?.text), isError: result.isError === true };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // JSON-RPC codes are negative; the SDKs' HTTP errors carry the HTTP status.
    return typeof code === 'number' && code < 0 ? { error: code } : { other: String(error) };
  }
}

describe.each(PLATFORMS)('a usual Nest application with two MCP servers (%s)', (platform) => {
  let server: HttpApp;
  let runs: EnhancerRuns;
  let logger: RecordingLogger;
  let publicUrl: URL;
  let adminUrl: URL;
  let token: string;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    logger = new RecordingLogger();
    server = await startHttpApp(HabitsAppModule, {
      platform,
      path: PUBLIC_PATHS.path,
      configure: (nest) => nest.useLogger(logger),
    });
    runs = server.app.get(EnhancerRuns);
    publicUrl = server.url;
    adminUrl = new URL('/admin', server.baseUrl);
    token = await signToken();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await server?.close();
  });

  const route = (path: string): URL => new URL(`/${path}`, server.baseUrl);

  it('public lists and runs only its own tools in the modern era; admin_whoami is unknown there', async () => {
    const client = await modernClient(publicUrl, opened);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(PUBLIC_TOOLS);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: 'echo: hi' },
    ]);
    const unknown = client.callTool({ name: 'admin_whoami', arguments: {} });
    await expect(unknown).rejects.toBeInstanceOf(ProtocolError);
    await expect(unknown).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: 'Unknown tool: admin_whoami',
    });
  });

  it('public lists and runs only its own tools in the legacy era (SDK v1); admin_whoami is unknown there', async () => {
    const client = await legacyClient(new StreamableHTTPClientTransport(publicUrl), opened);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(PUBLIC_TOOLS);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([
      { type: 'text', text: 'echo: hi' },
    ]);
    await expect(client.callTool({ name: 'admin_whoami', arguments: {} })).rejects.toMatchObject({
      code: McpErrorCode.InvalidParams,
      message: expect.stringContaining('Unknown tool: admin_whoami'),
    });
  });

  it('admin without a token: 401, a JSON-RPC body and a WWW-Authenticate challenge', async () => {
    const refused = await callModern(adminUrl, 'admin_whoami');
    expect({
      status: refused.status,
      type: refused.headers.get('content-type'),
      challenge: refused.headers.get('www-authenticate'),
      body: refused.json,
    }).toEqual({
      status: 401,
      type: expect.stringContaining('application/json'),
      challenge: expect.stringMatching(/^Bearer\b/),
      // The id is the request's, or null when the refusal comes before the body is read.
      body: expect.objectContaining({
        jsonrpc: '2.0',
        error: expect.objectContaining({ code: McpErrorCode.AccessDenied, message: expect.any(String) }),
      }),
    });
  });

  it('admin with a valid JWT: the call runs as req.user, and each global enhancer ran once, around the call', async () => {
    const authorization = `Bearer ${token}`;
    const listed = await exchange(adminUrl, {
      body: modernRequest('tools/list'),
      headers: { ...modernHeaders('tools/list'), authorization },
    });
    expect(answerOf(listed).result?.tools.map((tool: { name: string }) => tool.name)).toEqual(['admin_whoami']);
    runs.take();

    const answer = await callModern(adminUrl, 'admin_whoami', { authorization });
    expect({ status: answer.status, seen: JSON.parse(toolText(answerOf(answer))), runs: runs.take() }).toEqual({
      status: 200,
      seen: { principal: USER.sub, user: { id: USER.sub, username: USER.username } },
      // One HTTP request, one call: the module authenticates the request with the app's guard
      // (`auth`, on its endpoint), then the global guards and interceptor run once around the
      // call. Nothing runs on the transport's route as on a Nest route (`app http endpoint`,
      // `throttle http endpoint`, `log http endpoint ...`).
      runs: ['auth http endpoint', 'app mcp', 'throttle mcp', 'log mcp tools/call admin_whoami'],
    });
  });

  it('the throttler counts one per call and the interceptor logs one line per call, with the tool name', async () => {
    runs.take();
    const texts: string[] = [];
    for (let id = 1; id <= 3; id += 1) {
      texts.push(toolText(answerOf(await callModern(publicUrl, 'echo', {}, id))));
    }
    // The global JWT guard passes them (`@Public()` class) without a second run on the route.
    expect({ texts, runs: runs.take() }).toEqual({
      texts: Array(3).fill('echo: hi'),
      runs: Array(3).fill(['app mcp', 'throttle mcp', 'log mcp tools/call echo']).flat(),
    });
  });

  it('secret_note (class not @Public()) on public: the JSON-RPC error -32004 in both eras, not an isError result', async () => {
    const call = { name: 'secret_note', arguments: {} };
    const modern = outcomeOf(await callModern(publicUrl, call.name));
    const legacy = await outcomeOfCall(
      legacyClient(new StreamableHTTPClientTransport(publicUrl), opened).then((client) => client.callTool(call)),
    );
    expect({ modern, legacy }).toEqual({ modern: DENIED, legacy: DENIED });
  });

  it('boom answers -32603 on /public (both eras), /rpc and the SSE pair; the log names AllExceptionsFilter once', async () => {
    const call = { name: 'boom', arguments: {} };
    const modern = outcomeOf(await callModern(publicUrl, call.name));
    const legacy = await outcomeOfCall(
      legacyClient(new StreamableHTTPClientTransport(publicUrl), opened).then((client) => client.callTool(call)),
    );
    const simple = outcomeOf(
      await post(route(PUBLIC_PATHS.simpleHttpPath), legacyRequest('tools/call', call, 'rpc-1')),
    );
    const sse = await outcomeOfCall(
      legacyClient(new SSEClientTransport(route(PUBLIC_PATHS.ssePath)), opened).then((client) => client.callTool(call)),
    );
    const filterWarnings = logger.matching('warn', /AllExceptionsFilter/).length;
    expect({ modern, legacy, simple, sse, filterWarnings }).toEqual({
      modern: CRASHED,
      legacy: CRASHED,
      simple: CRASHED,
      sse: CRASHED,
      filterWarnings: 1,
    });
  });
});
