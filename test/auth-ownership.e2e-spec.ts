/**
 * What a principal owns, on Express and Fastify with bearer static tokens for alice and bob:
 * a legacy session (Streamable HTTP and the HTTP+SSE pair) answers another principal exactly as
 * an unknown session would (404), and keeps serving its owner; a modern `requestState` is sealed
 * to the principal it was handed to (-32602 "Invalid requestState", HTTP 400, for anyone else).
 * A task is found by its owner only (the principal in the modern era, the session in the legacy
 * one): anyone else gets -32602, exactly as for an unknown task id.
 */
import { type DynamicModule, Injectable, Module } from '@nestjs/common';
import { McpCtx, type McpCallContext, McpModule, McpTool, MCP_TASKS_EXTENSION, McpArgs } from 'nest-mcp';
import { type HttpApp, type HttpPlatform, startHttpApp } from './fixtures/http-app';
import {
  exchange,
  legacyRequest,
  META,
  modernHeaders,
  modernRequest,
  openLegacySession,
  post,
  type RawResponse,
  SseEventReader,
  SseReader,
  send,
  toolText,
  waitUntil,
} from './fixtures/raw-rpc';

const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
const ALICE = { authorization: 'Bearer alice-token' };
const BOB = { authorization: 'Bearer bob-token' };
/** A session id no one was ever given, shaped like a real one. */
const MADE_UP_SESSION = '0f8e2b7c-6a1d-4c3e-9b5a-1d2e3f4a5b6c';
const NAME_QUESTION = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
} as const;
const ADA = { action: 'accept', content: { name: 'Ada' } };

/** Counts the runs of the eliciting tool, so that a refused retry is seen not to run it. */
@Injectable()
class RunCounter {
  runs = 0;
}

@Injectable()
class OwnershipTools {
  constructor(private readonly counter: RunCounter) {}

  @McpTool({ description: 'Says who is calling' })
  whoami(@McpCtx() ctx: McpCallContext): string {
    return `you are ${ctx.principal.id}`;
  }

  @McpTool({
    description: 'Elicits a name',
    input: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  })
  async ask_name(@McpArgs('label') label: string, @McpCtx() ctx: McpCallContext): Promise<string> {
    this.counter.runs += 1;
    const answer = await ctx.elicit(NAME_QUESTION);
    return `${label}: ${ctx.principal.id} is ${String(answer.content?.name)}`;
  }
}

@Module({})
class OwnershipModule {
  static forRoot(): DynamicModule {
    return {
      module: OwnershipModule,
      imports: [
        McpModule.forRoot({
          name: 'ownership-fixture',
          version: '0.0.1',
          auth: { bearer: { tokens: { 'alice-token': { id: 'alice' }, 'bob-token': { id: 'bob' } } } },
          ssePath: 'sse',
          sseMessagesPath: 'messages',
        }),
      ],
      providers: [RunCounter, OwnershipTools],
    };
  }
}

/** The status, type and body of an answer: what a client can tell apart. */
function visible(response: RawResponse): { status: number; type: string | null; text: string } {
  return { status: response.status, type: response.headers.get('content-type'), text: response.text };
}

describe.each(PLATFORMS)('ownership of sessions and request state (%s)', (platform) => {
  let server: HttpApp;
  let counter: RunCounter;

  beforeAll(async () => {
    server = await startHttpApp(OwnershipModule.forRoot(), { platform });
    counter = server.app.get(RunCounter);
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('a legacy Streamable HTTP session', () => {
    /** The headers of a session's requests, with `principal`'s token instead of its owner's. */
    const as = (principal: Record<string, string>, session: Record<string, string>): Record<string, string> => ({
      ...session,
      ...principal,
    });
    const withSession = (sessionId: string, principal: Record<string, string>): Record<string, string> => ({
      ...principal,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    const whoami = (id: number) => legacyRequest('tools/call', { name: 'whoami', arguments: {} }, id);
    const getStream = (headers: Record<string, string>) =>
      exchange(server.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });

    it("answers bob's POST, GET and DELETE naming alice's session with 404, as for an unknown session", async () => {
      const alice = await openLegacySession(server.url, '2025-11-25', { headers: ALICE });

      const bobPost = await post(server.url, whoami(5), as(BOB, alice.headers));
      const unknownPost = await post(server.url, whoami(5), withSession(MADE_UP_SESSION, BOB));
      expect(bobPost.status).toBe(404);
      expect(bobPost.json).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32600, message: 'Session not found' } });
      expect(visible(bobPost)).toEqual(visible(unknownPost));

      const bobGet = await getStream(as(BOB, alice.headers));
      const unknownGet = await getStream(withSession(MADE_UP_SESSION, BOB));
      expect(bobGet.status).toBe(404);
      expect(bobGet.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } });
      expect(visible(bobGet)).toEqual(visible(unknownGet));

      const bobDelete = await exchange(server.url, { method: 'DELETE', headers: as(BOB, alice.headers) });
      const unknownDelete = await exchange(server.url, {
        method: 'DELETE',
        headers: withSession(MADE_UP_SESSION, BOB),
      });
      expect(bobDelete.status).toBe(404);
      expect(visible(bobDelete)).toEqual(visible(unknownDelete));

      // Alice's session is untouched: her POST, GET and DELETE still work.
      const alicePost = await post(server.url, whoami(6), alice.headers);
      expect(alicePost.status).toBe(200);
      expect(toolText(alicePost)).toBe('you are alice');

      const stream = await fetch(server.url, { headers: { ...alice.headers, accept: 'text/event-stream' } });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      await stream.body?.cancel();

      const aliceDelete = await exchange(server.url, { method: 'DELETE', headers: alice.headers });
      expect(aliceDelete.status).toBe(204);
      const afterDelete = await post(server.url, whoami(7), alice.headers);
      expect(afterDelete.status).toBe(404);
    });

    it('a session is found by its owner only: bob using his own session is served as bob', async () => {
      const alice = await openLegacySession(server.url, '2025-11-25', { headers: ALICE });
      const bob = await openLegacySession(server.url, '2025-11-25', { headers: BOB });
      expect(bob.sessionId).not.toBe(alice.sessionId);
      expect(toolText(await post(server.url, whoami(1), bob.headers))).toBe('you are bob');
      expect(toolText(await post(server.url, whoami(2), alice.headers))).toBe('you are alice');
      expect((await post(server.url, whoami(3), as(ALICE, bob.headers))).status).toBe(404);
    });
  });

  describe('the HTTP+SSE pair', () => {
    let reader: SseEventReader | undefined;

    afterEach(async () => {
      await reader?.cancel();
      reader = undefined;
    });

    it("answers bob's POST to alice's messages URL with 404, as for an unknown session; alice's POSTs still work", async () => {
      const response = await fetch(new URL('/sse', server.baseUrl), {
        headers: { accept: 'text/event-stream', ...ALICE },
      });
      expect(response.status).toBe(200);
      reader = new SseEventReader(response);
      const endpoint = await reader.nextEvent();
      expect(endpoint.event).toBe('endpoint');
      const messages = new URL(String(endpoint.data), server.baseUrl);
      const sessionId = messages.searchParams.get('sessionId');
      expect(sessionId).toEqual(expect.any(String));
      const unknown = new URL(messages);
      unknown.searchParams.set('sessionId', MADE_UP_SESSION);

      const initialize = legacyRequest(
        'initialize',
        { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } },
        'init',
      );
      const bobInit = await post(messages, initialize, BOB);
      const unknownInit = await post(unknown, initialize, BOB);
      expect(bobInit.status).toBe(404);
      expect(bobInit.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Session not found' } });
      expect(visible(bobInit)).toEqual(visible(unknownInit));

      expect((await post(messages, initialize, ALICE)).status).toBe(202);
      expect((await reader.nextMessage()).id).toBe('init');
      expect((await post(messages, { jsonrpc: '2.0', method: 'notifications/initialized' }, ALICE)).status).toBe(202);

      const call = legacyRequest('tools/call', { name: 'whoami', arguments: {} }, 2);
      const bobCall = await post(messages, call, BOB);
      expect(visible(bobCall)).toEqual(visible(await post(unknown, call, BOB)));
      expect(bobCall.status).toBe(404);

      expect((await post(messages, call, ALICE)).status).toBe(202);
      // Bob's call never reached the session: the next message on alice's stream answers hers.
      const answer = await reader.nextMessage();
      expect(answer.id).toBe(2);
      expect(answer.result?.content).toEqual([{ type: 'text', text: 'you are alice' }]);
    });
  });

  describe('modern requestState (input_required rounds)', () => {
    /** A modern `tools/call` of `ask_name` that declares elicitation; `extra` adds the retry fields. */
    const askName = (
      principal: Record<string, string>,
      label: string,
      extra: Record<string, unknown> = {},
      id = 1,
    ): Promise<RawResponse> =>
      post(
        server.url,
        modernRequest('tools/call', { name: 'ask_name', arguments: { label }, ...extra }, id, {
          [META.clientCapabilities]: { elicitation: {} },
        }),
        { ...modernHeaders('tools/call', 'ask_name'), ...principal },
      );

    it("refuses bob's retry with alice's requestState (-32602, HTTP 400) without running the tool; alice's completes", async () => {
      const first = await askName(ALICE, 'sealed');
      expect(first.status).toBe(200);
      expect(first.json.result).toEqual(
        expect.objectContaining({
          resultType: 'input_required',
          inputRequests: {
            'elicitation-1': { method: 'elicitation/create', params: NAME_QUESTION },
          },
          requestState: expect.any(String),
        }),
      );
      const requestState = first.json.result.requestState as string;
      const runsBefore = counter.runs;

      const stolen = await askName(BOB, 'sealed', { requestState, inputResponses: { 'elicitation-1': ADA } }, 2);
      expect(stolen.status).toBe(400);
      expect(stolen.json).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid requestState' } });
      expect(counter.runs).toBe(runsBefore);

      const own = await askName(ALICE, 'sealed', { requestState, inputResponses: { 'elicitation-1': ADA } }, 3);
      expect(own.status).toBe(200);
      expect(own.json.result.resultType).toBe('complete');
      expect(toolText(own)).toBe('sealed: alice is Ada');
      expect(counter.runs).toBe(runsBefore + 1);
    });

    it("bob's own round works: the state sealed to him completes for him", async () => {
      const first = await askName(BOB, 'bob-round');
      const requestState = first.json.result.requestState as string;
      expect(first.json.result.resultType).toBe('input_required');
      const stolen = await askName(ALICE, 'bob-round', { requestState, inputResponses: { 'elicitation-1': ADA } });
      expect(stolen.status).toBe(400);
      expect(stolen.json.error).toEqual({ code: -32602, message: 'Invalid requestState' });
      const own = await askName(BOB, 'bob-round', { requestState, inputResponses: { 'elicitation-1': ADA } });
      expect(toolText(own)).toBe('bob-round: bob is Ada');
    });
  });
});

/** Records the runs of the task tool whose signal aborted, by label. */
@Injectable()
class AbortLog {
  readonly aborted = new Set<string>();
}

@Injectable()
class TaskOwnershipTools {
  constructor(private readonly log: AbortLog) {}

  @McpTool({
    description: 'Works until `ms` pass or the task is cancelled',
    input: {
      type: 'object',
      properties: { label: { type: 'string' }, ms: { type: 'integer', minimum: 0 } },
      required: ['label', 'ms'],
    },
    taskSupport: 'optional',
  })
  async slow_job(@McpArgs() args: { label: string; ms: number }, @McpCtx() ctx: McpCallContext): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, args.ms);
      ctx.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          this.log.aborted.add(args.label);
          reject(ctx.signal.reason as Error);
        },
        { once: true },
      );
    });
    return `${args.label} done for ${ctx.principal.id}`;
  }
}

@Module({})
class TaskOwnershipModule {
  static forRoot(): DynamicModule {
    return {
      module: TaskOwnershipModule,
      imports: [
        McpModule.forRoot({
          name: 'task-ownership-fixture',
          version: '0.0.1',
          auth: { bearer: { tokens: { 'alice-token': { id: 'alice' }, 'bob-token': { id: 'bob' } } } },
          tasks: { inlineMs: 50 },
        }),
      ],
      providers: [AbortLog, TaskOwnershipTools],
    };
  }
}

/** A task id no one was ever given, shaped like a real one. */
const MADE_UP_TASK = 'task_00000000000000000000000000000000';
/** The client capabilities of a modern request that takes tasks. */
const TAKES_TASKS = { [META.clientCapabilities]: { extensions: { [MCP_TASKS_EXTENSION]: {} } } };

/** A JSON-RPC error with the task id in its message replaced, to compare a foreign id with an unknown one. */
function errorShape(response: RawResponse, taskId: string): { status: number; error: unknown } {
  const error = response.json?.error as { code: number; message: string } | undefined;
  return {
    status: response.status,
    error: error === undefined ? undefined : { ...error, message: error.message.split(taskId).join('<id>') },
  };
}

describe.each(PLATFORMS)('ownership of tasks (%s)', (platform) => {
  let server: HttpApp;
  let aborts: AbortLog;

  beforeAll(async () => {
    server = await startHttpApp(TaskOwnershipModule.forRoot(), { platform });
    aborts = server.app.get(AbortLog);
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('modern era (the tasks extension)', () => {
    /** A modern request of a task method (with the extension declared and `Mcp-Name`), as `principal`. */
    const taskRequest = (
      principal: Record<string, string>,
      method: string,
      params: Record<string, unknown> & { taskId: string },
      id: number,
    ): Promise<RawResponse> =>
      post(server.url, modernRequest(method, params, id, TAKES_TASKS), {
        ...modernHeaders(method, params.taskId),
        ...principal,
      });

    /** Starts `slow_job` as `principal`; past the inline window it becomes a task, whose id is returned. */
    const startJob = async (principal: Record<string, string>, label: string): Promise<string> => {
      const response = await post(
        server.url,
        modernRequest('tools/call', { name: 'slow_job', arguments: { label, ms: 30_000 } }, 1, TAKES_TASKS),
        { ...modernHeaders('tools/call', 'slow_job'), ...principal },
      );
      expect(response.status).toBe(200);
      expect(response.json.result).toEqual(
        expect.objectContaining({ resultType: 'task', taskId: expect.any(String), status: 'working' }),
      );
      return response.json.result.taskId as string;
    };

    it("answers bob's tasks/get, tasks/update and tasks/cancel of alice's task with -32602, as for an unknown id", async () => {
      const taskId = await startJob(ALICE, 'alice-modern');
      const calls: Array<[string, Record<string, unknown>]> = [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: { name: ADA } }],
        ['tasks/cancel', {}],
      ];
      for (const [index, [method, extra]] of calls.entries()) {
        const foreign = await taskRequest(BOB, method, { taskId, ...extra }, 10 + index);
        const unknown = await taskRequest(BOB, method, { taskId: MADE_UP_TASK, ...extra }, 10 + index);
        expect(foreign.json).toEqual({
          jsonrpc: '2.0',
          id: 10 + index,
          error: expect.objectContaining({ code: -32602 }),
        });
        expect(errorShape(foreign, taskId)).toEqual(errorShape(unknown, MADE_UP_TASK));
      }
      // Bob's cancel did nothing: the task works on, and alice still reaches it.
      expect(aborts.aborted.has('alice-modern')).toBe(false);
      const own = await taskRequest(ALICE, 'tasks/get', { taskId }, 20);
      expect(own.status).toBe(200);
      expect(own.json.result).toEqual(expect.objectContaining({ taskId, status: 'working' }));
      const update = await taskRequest(ALICE, 'tasks/update', { taskId, inputResponses: {} }, 21);
      expect(update.json.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
      const cancel = await taskRequest(ALICE, 'tasks/cancel', { taskId }, 22);
      expect(cancel.json.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
      await waitUntil(() => aborts.aborted.has('alice-modern'), "the cancelled task's signal to abort");
      const after = await taskRequest(ALICE, 'tasks/get', { taskId }, 23);
      expect(after.json.result).toEqual(expect.objectContaining({ taskId, status: 'cancelled' }));
    });

    it("leaves alice's task out of bob's subscriptions/listen acknowledgement", async () => {
      const taskId = await startJob(ALICE, 'alice-listened');
      const listenAs = async (principal: Record<string, string>, id: string): Promise<SseReader> => {
        const response = await send(server.url, {
          body: modernRequest('subscriptions/listen', { notifications: { taskIds: [taskId] } }, id, TAKES_TASKS),
          headers: { ...modernHeaders('subscriptions/listen'), ...principal },
          signal: cleanup.signal,
        });
        expect(response.status).toBe(200);
        return new SseReader(response);
      };
      const cleanup = new AbortController();
      try {
        const bob = await listenAs(BOB, 'bob-listen');
        const bobAck = await bob.next();
        expect(bobAck.method).toBe('notifications/subscriptions/acknowledged');
        expect(bobAck.params?.notifications).toEqual({ taskIds: [] });
        const alice = await listenAs(ALICE, 'alice-listen');
        const aliceAck = await alice.next();
        expect(aliceAck.params?.notifications?.taskIds).toEqual([taskId]);
        // Alice hears of her task's cancellation.
        await taskRequest(ALICE, 'tasks/cancel', { taskId }, 30);
        const heard = await alice.next();
        expect(heard).toEqual(
          expect.objectContaining({
            method: 'notifications/tasks',
            params: expect.objectContaining({ taskId, status: 'cancelled' }),
          }),
        );
      } finally {
        cleanup.abort();
      }
    });
  });

  describe('legacy era (a session owns its tasks)', () => {
    const call = (headers: Record<string, string>, method: string, params: Record<string, unknown>, id: number) =>
      post(server.url, legacyRequest(method, params, id), headers);

    it("bob's session cannot see alice's session task: -32602 on tasks/get, result and cancel, absent from tasks/list", async () => {
      const alice = await openLegacySession(server.url, '2025-11-25', { headers: ALICE });
      const bob = await openLegacySession(server.url, '2025-11-25', { headers: BOB });
      try {
        const created = await call(
          alice.headers,
          'tools/call',
          { name: 'slow_job', arguments: { label: 'alice-legacy', ms: 30_000 }, task: { ttl: 60_000 } },
          1,
        );
        const createdMessage = created.json ?? created.events.find((message) => message.id === 1);
        const taskId = createdMessage.result.task.taskId as string;
        expect(createdMessage.result.task).toEqual(expect.objectContaining({ taskId, status: 'working' }));

        for (const [index, method] of ['tasks/get', 'tasks/result', 'tasks/cancel'].entries()) {
          const foreign = await call(bob.headers, method, { taskId }, 10 + index);
          const unknown = await call(bob.headers, method, { taskId: MADE_UP_TASK }, 10 + index);
          const foreignMessage = foreign.json ?? foreign.events.find((message) => message.id === 10 + index);
          expect(foreignMessage).toEqual({
            jsonrpc: '2.0',
            id: 10 + index,
            error: expect.objectContaining({ code: -32602 }),
          });
          expect(errorShape(foreign, taskId)).toEqual(errorShape(unknown, MADE_UP_TASK));
        }
        const bobList = await call(bob.headers, 'tasks/list', {}, 20);
        expect(bobList.json.result.tasks).toEqual([]);

        // Alice's session still has it, working.
        const aliceList = await call(alice.headers, 'tasks/list', {}, 21);
        expect(aliceList.json.result.tasks).toEqual([expect.objectContaining({ taskId, status: 'working' })]);
        expect(aborts.aborted.has('alice-legacy')).toBe(false);
        const aliceCancel = await call(alice.headers, 'tasks/cancel', { taskId }, 22);
        expect(aliceCancel.json.result).toEqual(expect.objectContaining({ taskId, status: 'cancelled' }));
        await waitUntil(() => aborts.aborted.has('alice-legacy'), "the cancelled task's signal to abort");
      } finally {
        await exchange(server.url, { method: 'DELETE', headers: alice.headers });
        await exchange(server.url, { method: 'DELETE', headers: bob.headers });
      }
    });
  });
});
