/**
 * Questions to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.listRoots()`) in the legacy era,
 * byte by byte with plain `fetch`: each question is a JSON-RPC request on the call's SSE stream,
 * and the client's answer a JSON-RPC response POSTed on its session (always 202), matched on
 * the session and the id only: answers for unknown ids, from another session or another
 * principal are dropped.
 */
import type { HttpPlatform } from './fixtures/http-app';
import { type InputApp, PRINCIPAL_HEADER, startInputApp } from './fixtures/client-requests-fixture';
import {
  legacyRequest,
  openLegacySession,
  post,
  type RawResponse,
  send,
  SseReader,
  toolText,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
const ADA = { action: 'accept', content: { name: 'Ada' } };

interface LegacySession {
  sessionId: string;
  headers: Record<string, string>;
}

/** Opens a legacy session declaring `capabilities`, owned by `principal` (anonymous without). */
function openSession(
  url: URL,
  options: { revision?: string; capabilities?: Record<string, unknown>; principal?: string } = {},
): Promise<LegacySession> {
  return openLegacySession(url, options.revision, {
    capabilities: options.capabilities ?? ALL_CAPABILITIES,
    headers: options.principal === undefined ? {} : { [PRINCIPAL_HEADER]: options.principal },
  });
}

/** Starts a legacy tools/call and returns a reader of its SSE stream. */
async function startCall(
  url: URL,
  session: LegacySession,
  name: string,
  args: Record<string, unknown>,
  id = 7,
): Promise<SseReader> {
  const response = await send(url, {
    body: legacyRequest('tools/call', { name, arguments: args }, id),
    headers: session.headers,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return new SseReader(response);
}

/** POSTs a JSON-RPC response (a result, or an error) as the client. */
function answer(
  url: URL,
  headers: Record<string, string>,
  id: unknown,
  outcome: Record<string, unknown>,
): Promise<RawResponse> {
  return post(url, { jsonrpc: '2.0', id, ...outcome }, headers);
}

describe.each(PLATFORMS)('legacy era on the wire (%s)', (platform) => {
  let app: InputApp;

  beforeAll(async () => {
    app = await startInputApp({}, platform);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sends the question on the call stream and delivers the answer POSTed on the session (202)', async () => {
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label: 'plain' });
    const question = await reader.next();
    expect(question).toEqual({
      jsonrpc: '2.0',
      id: expect.anything(),
      method: 'elicitation/create',
      params: {
        message: 'Guarded question plain',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    });
    const delivered = await answer(app.url, session.headers, question.id, { result: ADA });
    expect(delivered.status).toBe(202);
    expect(delivered.text).toBe('');
    expect(delivered.headers.get('mcp-session-id')).toBe(session.sessionId);
    const result = await reader.next();
    expect(result.id).toBe(7);
    expect(toolText(result)).toBe('answered action=accept name=Ada');
    await expect(reader.rest()).resolves.toEqual([]);
  });

  it('matches answers to questions by id across concurrent calls of one session', async () => {
    const session = await openSession(app.url);
    const first = await startCall(app.url, session, 'ask_guarded', { label: 'concurrent-1' }, 11);
    const second = await startCall(app.url, session, 'ask_guarded', { label: 'concurrent-2' }, 12);
    const [q1, q2] = [await first.next(), await second.next()];
    expect(q1.id).not.toEqual(q2.id);
    await answer(app.url, session.headers, q2.id, { result: { action: 'accept', content: { name: 'Second' } } });
    await answer(app.url, session.headers, q1.id, { result: { action: 'accept', content: { name: 'First' } } });
    const [r1, r2] = [await first.next(), await second.next()];
    expect([r1.id, toolText(r1)]).toEqual([11, 'answered action=accept name=First']);
    expect([r2.id, toolText(r2)]).toEqual([12, 'answered action=accept name=Second']);
  });

  it('drops answers to unknown ids (202) and still delivers the right one', async () => {
    const label = 'unknown-id';
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label });
    const question = await reader.next();
    const numericId = typeof question.id === 'number' ? question.id : 0;
    const strays = [
      answer(app.url, session.headers, numericId + 100_000, { result: { action: 'decline' } }),
      answer(app.url, session.headers, String(question.id), { result: { action: 'decline' } }),
      answer(app.url, session.headers, 'no-such-request', { error: { code: -32001, message: 'stray' } }),
      answer(app.url, session.headers, null, { error: { code: -32700, message: 'Parse error' } }),
    ];
    for (const stray of await Promise.all(strays)) {
      expect(stray.status).toBe(202);
    }
    expect(app.probe.outcomes.filter((outcome) => outcome.label === label)).toEqual([]);
    expect((await answer(app.url, session.headers, question.id, { result: ADA })).status).toBe(202);
    expect(toolText(await reader.next())).toBe('answered action=accept name=Ada');
    // A second answer to the same request is dropped too, and the session goes on.
    expect((await answer(app.url, session.headers, question.id, { result: ADA })).status).toBe(202);
    const ping = await post(app.url, legacyRequest('ping', undefined, 8), session.headers);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    expect(app.probe.outcomes.filter((outcome) => outcome.label === label)).toHaveLength(1);
  });

  it("drops an answer POSTed on another session: it never resolves this session's question", async () => {
    const label = 'other-session';
    const owner = await openSession(app.url);
    const intruder = await openSession(app.url);
    const reader = await startCall(app.url, owner, 'ask_guarded', { label });
    const question = await reader.next();
    const foreign = await answer(app.url, intruder.headers, question.id, {
      result: { action: 'accept', content: { name: 'Mallory' } },
    });
    expect(foreign.status).toBe(202);
    expect(foreign.headers.get('mcp-session-id')).toBe(intruder.sessionId);
    expect((await answer(app.url, owner.headers, question.id, { result: ADA })).status).toBe(202);
    expect(toolText(await reader.next())).toBe('answered action=accept name=Ada');
    expect(app.probe.outcomes.filter((outcome) => outcome.label === label)).toEqual([
      { label, type: 'answered', message: 'accept' },
    ]);
  });

  it('drops an answer POSTed on the session by another principal (or anonymously)', async () => {
    const label = 'other-principal';
    const owner = await openSession(app.url, { principal: 'alice' });
    const reader = await startCall(app.url, owner, 'ask_guarded', { label });
    const question = await reader.next();
    const mallory = { action: 'accept', content: { name: 'Mallory' } };
    const asBob = await answer(app.url, { ...owner.headers, [PRINCIPAL_HEADER]: 'bob' }, question.id, {
      result: mallory,
    });
    expect(asBob.status).toBe(202);
    expect(asBob.headers.get('mcp-session-id')).toBeNull();
    const { [PRINCIPAL_HEADER]: _alice, ...anonymousHeaders } = owner.headers;
    const asAnonymous = await answer(app.url, anonymousHeaders, question.id, { result: mallory });
    expect(asAnonymous.status).toBe(202);
    expect(asAnonymous.headers.get('mcp-session-id')).toBeNull();
    expect((await answer(app.url, owner.headers, question.id, { result: ADA })).status).toBe(202);
    expect(toolText(await reader.next())).toBe('answered action=accept name=Ada');
  });

  it('drops a late answer after the question timed out (timeoutMs), and the session goes on', async () => {
    const label = 'late';
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label, timeoutMs: 100 });
    const question = await reader.next();
    // The client is told to stop asking its user, on the same stream, before the call goes on.
    expect(await reader.next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: question.id, reason: 'The client did not answer elicitation/create within 100 ms' },
    });
    expect(toolText(await reader.next())).toBe(
      'rejected code=-32603 message=The client did not answer elicitation/create within 100 ms',
    );
    expect((await answer(app.url, session.headers, question.id, { result: ADA })).status).toBe(202);
    expect(app.probe.outcomes.filter((outcome) => outcome.label === label)).toHaveLength(1);
    const ping = await post(app.url, legacyRequest('ping', undefined, 9), session.headers);
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('fails the question when the session is deleted; the call stream ends without a response', async () => {
    const label = 'deleted';
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label });
    await reader.next();
    const deleted = await send(app.url, { method: 'DELETE', headers: session.headers });
    expect(deleted.status).toBeLessThan(300);
    await expect(app.probe.outcome(label)).resolves.toMatchObject({ type: 'rejected', message: 'Session ended' });
    await expect(reader.rest()).resolves.toEqual([]);
    // An answer for the ended session is dropped like any other.
    const late = await answer(app.url, session.headers, 1, { result: ADA });
    expect(late.status).toBe(202);
  });

  it('rejects ctx.elicit() with the error the client answered', async () => {
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label: 'error-answer' });
    const question = await reader.next();
    await answer(app.url, session.headers, question.id, {
      error: { code: -32001, message: 'The user refused', data: { why: 'busy' } },
    });
    expect(toolText(await reader.next())).toBe('rejected code=-32001 message=The user refused');
  });

  it('rejects ctx.elicit() when the answer does not have the shape of an elicitation result', async () => {
    const session = await openSession(app.url);
    const reader = await startCall(app.url, session, 'ask_guarded', { label: 'bad-shape' });
    const question = await reader.next();
    await answer(app.url, session.headers, question.id, { result: { content: { name: 'Ada' } } });
    expect(toolText(await reader.next())).toBe(
      'rejected code=-32603 message=The client\'s answer to elicitation/create is invalid: action must be "accept", "decline" or "cancel"',
    );
  });

  it("asks a batched call's question on the session's GET stream, the only stream the client reads", async () => {
    const session = await openSession(app.url, { revision: '2025-03-26', capabilities: { roots: {} } });
    const get = await send(app.url, { method: 'GET', headers: { ...session.headers, accept: 'text/event-stream' } });
    expect(get.status).toBe(200);
    const stream = new SseReader(get);
    const batch = post(
      app.url,
      [legacyRequest('tools/call', { name: 'ask_roots', arguments: {} }, 31)],
      session.headers,
    );
    const question = await stream.next();
    expect(question).toMatchObject({ method: 'roots/list', params: {} });
    const delivered = await answer(app.url, session.headers, question.id, {
      result: { roots: [{ uri: 'file:///batched', name: 'b' }] },
    });
    expect(delivered.status).toBe(202);
    const answered = await batch;
    expect(answered.status).toBe(200);
    expect(answered.json).toEqual([
      expect.objectContaining({
        id: 31,
        result: expect.objectContaining({ content: [{ type: 'text', text: 'roots=b@file:///batched' }] }),
      }),
    ]);
    await stream.cancel();
  });

  it('delivers a batch of answers on a 2025-03-26 session', async () => {
    const session = await openSession(app.url, { revision: '2025-03-26', capabilities: { sampling: {}, roots: {} } });
    expect(session.headers['mcp-protocol-version']).toBe('2025-03-26');
    const reader = await startCall(app.url, session, 'sample_and_roots', {});
    const questions = [await reader.next(), await reader.next()];
    expect(questions.map((question) => question.method).sort()).toEqual(['roots/list', 'sampling/createMessage']);
    const idOf = (method: string): unknown => questions.find((question) => question.method === method)!.id;
    const batch = await post(
      app.url,
      [
        { jsonrpc: '2.0', id: idOf('roots/list'), result: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } },
        {
          jsonrpc: '2.0',
          id: idOf('sampling/createMessage'),
          result: { role: 'assistant', content: { type: 'text', text: 'Hi there' }, model: 'm' },
        },
      ],
      session.headers,
    );
    expect(batch.status).toBe(202);
    expect(batch.text).toBe('');
    expect(toolText(await reader.next())).toBe('text=Hi there roots=file:///a,file:///b');
  });

  it('never delivers a batch of answers POSTed on the session by another principal', async () => {
    const owner = await openSession(app.url, {
      principal: 'alice',
      revision: '2025-03-26',
      capabilities: { sampling: {}, roots: {} },
    });
    const reader = await startCall(app.url, owner, 'sample_and_roots', {});
    const questions = [await reader.next(), await reader.next()];
    const batchFor = (uri: string, text: string): unknown[] =>
      questions.map((question) =>
        question.method === 'roots/list'
          ? { jsonrpc: '2.0', id: question.id, result: { roots: [{ uri }] } }
          : {
              jsonrpc: '2.0',
              id: question.id,
              result: { role: 'assistant', content: { type: 'text', text }, model: 'm' },
            },
      );
    const asBob = await post(app.url, batchFor('file:///mallory', 'Mallory'), {
      ...owner.headers,
      [PRINCIPAL_HEADER]: 'bob',
    });
    // Refused (404, as for any request naming a session the caller does not own) or dropped (202).
    expect([202, 404]).toContain(asBob.status);
    const asAlice = await post(app.url, batchFor('file:///alice', 'Alice'), owner.headers);
    expect(asAlice.status).toBe(202);
    expect(toolText(await reader.next())).toBe('text=Alice roots=file:///alice');
  });

  it('refuses a question the session did not declare with -32021 and data.requiredCapabilities, in a 200', async () => {
    const session = await openSession(app.url, { capabilities: { sampling: {} } });
    const elicit = await post(
      app.url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 3),
      session.headers,
    );
    // 200: legacy clients read any other status as a transport failure and lose the error.
    expect(elicit.status).toBe(200);
    expect(elicit.json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32021,
        message: 'The client did not declare the capability this request needs for elicitation/create',
        data: { requiredCapabilities: { elicitation: {} } },
      },
    });
    const tools = await post(
      app.url,
      legacyRequest('tools/call', { name: 'ask_model', arguments: { prompt: 'x', withTools: true } }, 4),
      session.headers,
    );
    expect(tools.json.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    });
  });

  it('refuses elicitation on a 2025-03-26 session, which predates it', async () => {
    const session = await openSession(app.url, { revision: '2025-03-26' });
    const response = await post(
      app.url,
      legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, 5),
      session.headers,
    );
    expect(response.status).toBe(200);
    expect(response.json.error).toMatchObject({
      code: -32603,
      message: 'elicitation/create is not available in revision 2025-03-26',
    });
  });
});
