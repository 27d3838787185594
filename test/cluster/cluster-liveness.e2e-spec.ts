/**
 * An instance that dies: two instances sharing one Redis (`test/fixtures/shutdown-main.ts`, each
 * in a child process of its own), the round-robin proxy with failover in front, an SDK v1
 * client with a legacy session and its GET stream open, and a real SIGKILL.
 *
 * The SDK reconnects its GET stream twice, `retry` apart, then gives up: the other instance
 * must take the dead one's stream over at once, with what it could not deliver meanwhile.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import Redis from 'ioredis';
import { MCP_CLUSTER_LINK } from '../../lib/shared/mcp.constants';
import type { RedisClusterLink } from '../../lib/stores/redis/redis-cluster.link';
import { startCluster, type Cluster } from '../fixtures/cluster-fixture';
import { PRINCIPAL_HEADER } from '../fixtures/tasks-fixture';
import { Collector, openLegacySession, parseSseEvent, streamWatchingFetch, withTimeout } from '../fixtures/raw-rpc';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { legacyPost, openLegacyStream, pollFor, rpcMessageOf, rpcResultOf, uniqueKeyPrefix } from './cluster-helpers';

const ENTRY = 'test/fixtures/shutdown-main.ts';
const NAMES = ['A', 'B'];
const TICKS = 8;

/** One GET stream the client opened: its `Last-Event-ID`, and each event it got (`<id> <what>`). */
interface GetStream {
  readonly lastEventId: string | null;
  readonly events: string[];
}

/**
 * `fetch` recording the events of every GET stream into `gets`: a failure then tells which
 * event ids the client got from which instance, and where it resumed from.
 */
function getRecordingFetch(inner: typeof fetch, gets: GetStream[]): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'GET' || response.body === null) {
      return response;
    }
    const get: GetStream = { lastEventId: new Headers(init?.headers).get('last-event-id'), events: [] };
    gets.push(get);
    const [copy, theirs] = response.body.tee();
    void (async () => {
      let text = '';
      try {
        for await (const chunk of copy.pipeThrough(new TextDecoderStream())) {
          const blocks = (text + chunk).split('\n\n');
          text = blocks.pop() ?? '';
          for (const event of blocks.map((block) => parseSseEvent(block))) {
            const params = event?.message?.params as { data?: string } | undefined;
            get.events.push(`${event?.id ?? '(no id)'} ${params?.data ?? event?.message?.method ?? '(priming)'}`);
          }
        }
      } catch (error) {
        get.events.push(`(dropped: ${String(error)})`);
      }
    })();
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The text of the first content block of a tool result. */
function firstText(result: unknown): string {
  return String((result as { content?: Array<{ text?: unknown }> }).content?.[0]?.text);
}

jest.setTimeout(60_000);

let redis: RedisServerHandle;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis?.stop();
});

describe('cluster: SIGKILL to one of two instances behind a balancer', () => {
  let instances: ServerProcess[] = [];
  let proxy: RoundRobinProxy | undefined;
  let client: V1Client | undefined;
  /** What the last client's transport reported (`onerror`), for a failure's message. */
  let transportErrors: string[] = [];
  /** The client's GET streams, for a failure's message. */
  let gets: GetStream[] = [];

  afterEach(async () => {
    instances.forEach((instance) => instance.kill());
    await client?.close().catch(() => undefined);
    await proxy?.close();
    client = undefined;
    proxy = undefined;
  });

  /** Two instances, the proxy, and a v1 client connected through it with its GET stream open. */
  async function connect(label: string, env: Record<string, string> = {}) {
    const keyPrefix = uniqueKeyPrefix(label);
    instances = await Promise.all(
      NAMES.map((name) =>
        startServerProcess(ENTRY, {
          MCP_INSTANCE: name,
          MCP_REDIS_URL: redis.url,
          MCP_REDIS_PREFIX: keyPrefix,
          ...env,
        }),
      ),
    );
    proxy = await startRoundRobinProxy(
      instances.map((instance) => instance.baseUrl),
      { failover: true },
    );
    const watched = streamWatchingFetch();
    const { streams } = watched;
    const fetch = getRecordingFetch(watched.fetch, (gets = []));
    client = new V1Client({ name: 'liveness-cluster-e2e', version: '1.0.0' });
    const logs = new Collector<string>();
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) =>
      logs.push(String(notification.params.data)),
    );
    const listChanged = new Collector<unknown>();
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => listChanged.push(notification));
    // The SDK's own reconnection: twice, the server's `retry` apart, then it gives up.
    const transport = new V1StreamableHTTPClientTransport(new URL('/mcp', proxy.url), { fetch });
    const errors: string[] = (transportErrors = []);
    transport.onerror = (error) => errors.push(error.message);
    await client.connect(transport);
    const [firstGet] = await streams.waitFor(1, (stream) => stream.method === 'GET');
    expect(firstGet.status).toBe(200);
    const holder = proxy.routes.find((route) => route.method === 'GET')!.target;
    const session = {
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
    };
    return { victim: instances[holder], survivor: instances[1 - holder], session, logs, listChanged, errors };
  }

  function withOutputs(error: unknown): Error {
    const outputs = instances.map((instance, index) => `--- ${NAMES[index]} ---\n${instance.output()}`);
    // What the client's transport reported, and where the balancer sent each request.
    const routes = (proxy?.routes ?? []).map(
      (route) => `${route.method} ${route.url} -> ${route.target} ${route.status}`,
    );
    const streams = gets.map(
      ({ lastEventId, events }) => `GET (Last-Event-ID ${lastEventId ?? 'none'}): ${events.join(', ')}`,
    );
    const client =
      `--- client errors ---\n${transportErrors.join('\n')}\n--- proxy routes ---\n${routes.join('\n')}\n` +
      `--- client GET streams ---\n${streams.join('\n')}`;
    return new Error(`${String(error)}\n${outputs.join('\n')}\n${client}`, { cause: error });
  }

  // Stalled: a busy machine can leave the victim unscheduled while Redis hands it a tick, which
  // the survivor then takes for delivered; the kill loses it with the process.
  it.each([
    ['killed', false],
    ['stalled with a tick handed to it, then killed', true],
  ])(
    "the client's stream goes on on the other instance, with every message sent while its instance was dead (%s)",
    async (_, stalled) => {
      // The client comes back 3 s after its stream dropped: meanwhile the survivor keeps what the
      // dead instance would have sent it.
      const { victim, survivor, session, logs, listChanged, errors } = await connect('liveness-stream', {
        MCP_RETRY_MS: '3000',
      });
      try {
        // A task on the survivor whose work logs on the session's stream, held by the victim.
        const created = rpcResultOf(
          await legacyPost(
            survivor.url,
            session,
            'tools/call',
            { name: 'chatter', arguments: { count: TICKS, everyMs: 300, label: 'c' }, task: { ttl: 60_000 } },
            'chatter',
          ),
        );
        expect(created.task.status).toBe('working');
        await logs.waitFor(1);
        if (stalled) {
          process.kill(victim.pid, 'SIGSTOP');
          await survivor.line(/PROBE tick c: 2/);
        }

        // Killed: no release, no goodbye; its claim on the stream stays in Redis.
        await victim.terminate('SIGKILL');
        // Within a beat, the survivor takes in the session; what it announces meanwhile is kept.
        await survivor.line(/Keeping the messages of 1 stream\(s\) of instance [0-9a-f]{16}, which stopped/);
        expect(
          firstText(rpcResultOf(await legacyPost(survivor.url, session, 'tools/call', { name: 'announce' }))),
        ).toBe('announced');
        await listChanged.waitFor(1, () => true, 15_000);
        const ticks = await logs.waitFor(TICKS, () => true, 15_000);
        expect(ticks).toEqual(Array.from({ length: TICKS }, (_, index) => `tick c ${index + 1}`));
        expect(errors.filter((message) => /Maximum reconnection attempts/.test(message))).toEqual([]);
        // The survivor kept what it could not deliver, and the client's resume found it there.
        await survivor.line(/PROBE tick c: 8/);
        expect(survivor.output()).toMatch(
          /Took over the stream of session \S+ from instance [0-9a-f]{16}, which stopped/,
        );
      } catch (error) {
        throw withOutputs(error);
      }
    },
  );

  it('a task whose instance was killed reads failed at once on the other', async () => {
    const { victim, survivor, session } = await connect('liveness-task');
    try {
      const created = rpcResultOf(
        await legacyPost(
          victim.url,
          session,
          'tools/call',
          { name: 'slow', arguments: { ms: 60_000, label: 'stuck' }, task: { ttl: 60_000 } },
          'stuck',
        ),
      );
      const taskId = String(created.task.taskId);
      await victim.line(/PROBE started stuck/);
      const read = async () => rpcResultOf(await legacyPost(survivor.url, session, 'tasks/get', { taskId }));
      await expect(read()).resolves.toMatchObject({ taskId, status: 'working' });
      // A `tasks/result` waiting on the survivor for the task's end.
      const waiting = legacyPost(survivor.url, session, 'tasks/result', { taskId }, 'result');
      await new Promise((resolve) => setTimeout(resolve, 300));

      await victim.terminate('SIGKILL');
      // The waiting `tasks/result` hears of the end too.
      expect(rpcMessageOf(await withTimeout(waiting, 10_000, 'the tasks/result answer'))).toMatchObject({
        id: 'result',
        error: { message: 'The instance running this task stopped' },
      });
      // Long before its TTL (a minute): within a heartbeat or two.
      const failed = await pollFor(read, (task) => task.status !== 'working', 'the task to end', 10_000, 100);
      expect(failed).toMatchObject({
        taskId,
        status: 'failed',
        statusMessage: 'The instance running this task stopped',
      });
    } catch (error) {
      throw withOutputs(error);
    }
  });
});

describe('cluster: a session Redis lost', () => {
  let cluster: Cluster | undefined;
  let redisClient: Redis | undefined;
  const streams = new AbortController();

  afterAll(async () => {
    streams.abort();
    await cluster?.close();
    await redisClient?.quit();
  });

  it('its GET stream ends when the claims are next refreshed, and its claim is not made again', async () => {
    const keyPrefix = uniqueKeyPrefix('liveness-vanished');
    cluster = await startCluster({ redisUrl: redis.url, keyPrefix });
    const [a] = cluster.apps;
    redisClient = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const session = await openLegacySession(a.url, '2025-11-25', { headers: { [PRINCIPAL_HEADER]: 'alice' } });
    const { sessionId } = session;
    const stream = await openLegacyStream(a.url, session.headers, streams.signal);
    const claim = `${keyPrefix}stream:${sessionId}`;
    expect(await redisClient.exists(claim)).toBe(1);

    // Redis loses the session (evicted under memory pressure, a failover that lost it...).
    await redisClient.del(`${keyPrefix}session:${sessionId}`, `${keyPrefix}session:${sessionId}:subs`);
    // What the link does every 10 s, now.
    await a.app.get<RedisClusterLink>(MCP_CLUSTER_LINK).refreshClaims();

    await expect(stream.rest()).resolves.toEqual([]);
    expect(await redisClient.exists(claim)).toBe(0);
  });
});
