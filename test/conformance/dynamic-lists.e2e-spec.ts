/**
 * The conformance fixture's runtime entries across instances (conformance.dynamic.ts): what a
 * trigger tool adds or removes on one instance is in every instance's list by the time it
 * answers, an instance started later catches up, a trigger waits for a slow instance and says so
 * when one never confirms; without Redis the trigger changes its own process, as before.
 */
import { Redis } from 'ioredis';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { startRedisServer, type RedisServerHandle } from '../support/redis-server';
import { modernPost, rpcResultOf, timed, uniqueKeyPrefix } from '../cluster/cluster-helpers';
import { ConformanceModule } from './conformance.module';
import { DYNAMIC_PROMPT, DYNAMIC_TOOL } from './conformance.dynamic';

const SECRET = 'conformance-dynamic-lists-request-state-secret-0123456789';

/** Calls a tool with no arguments on `app`; its result. */
async function call(app: HttpApp, name: string): Promise<Record<string, any>> {
  return rpcResultOf(await modernPost(app.url, 'tools/call', { name, arguments: {} }));
}

async function toolNames(app: HttpApp): Promise<string[]> {
  return (rpcResultOf(await modernPost(app.url, 'tools/list')).tools as Array<{ name: string }>).map(
    (tool) => tool.name,
  );
}

async function promptNames(app: HttpApp): Promise<string[]> {
  return (rpcResultOf(await modernPost(app.url, 'prompts/list')).prompts as Array<{ name: string }>).map(
    (prompt) => prompt.name,
  );
}

describe('conformance fixture: runtime entries on several instances', () => {
  let redis: RedisServerHandle;
  const apps: HttpApp[] = [];
  const clients: Redis[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await Promise.all(clients.splice(0).map((client) => client.quit()));
  });

  afterAll(async () => {
    await redis.stop();
  });

  async function instance(keyPrefix: string, ackTimeoutMs?: number): Promise<HttpApp> {
    const app = await startHttpApp(
      ConformanceModule.forRoot({
        redisUrl: redis.url,
        requestStateSecret: SECRET,
        lists: { keyPrefix, ackTimeoutMs },
      }),
    );
    apps.push(app);
    return app;
  }

  /**
   * A stand-in for a third instance: subscribed to the fixture's change channel, it acknowledges
   * each change after `delayMs`, or never.
   */
  async function fakeInstance(keyPrefix: string, delayMs: number | 'never'): Promise<void> {
    const client = new Redis(redis.url);
    const subscriber = client.duplicate();
    clients.push(client, subscriber);
    subscriber.on('message', (_channel: string, message: string) => {
      const [entry, version, origin] = message.split(' ');
      if (delayMs !== 'never') {
        setTimeout(() => void client.publish(`${keyPrefix}dynamic:acks:${origin}`, `${entry} ${version}`), delayMs);
      }
    });
    await subscriber.subscribe(`${keyPrefix}dynamic:changes`);
  }

  it('what a trigger adds or removes on one instance is so in the lists of the other once it answers', async () => {
    const prefix = uniqueKeyPrefix('dynamic');
    const a = await instance(prefix);
    const b = await instance(prefix);
    expect(await toolNames(b)).not.toContain(DYNAMIC_TOOL);

    // Each list request right after the trigger's answer: no waiting, no polling.
    expect((await call(a, 'test_trigger_tool_change')).content[0].text).toBe(`Added ${DYNAMIC_TOOL}`);
    expect(await toolNames(b)).toContain(DYNAMIC_TOOL);
    expect(await toolNames(a)).toEqual(await toolNames(b));
    expect((await call(b, DYNAMIC_TOOL)).content[0].text).toBe('This tool was added at runtime.');

    expect((await call(b, 'test_trigger_tool_change')).content[0].text).toBe(`Removed ${DYNAMIC_TOOL}`);
    expect(await toolNames(a)).not.toContain(DYNAMIC_TOOL);

    expect((await call(b, 'test_trigger_prompt_change')).content[0].text).toBe(`Added ${DYNAMIC_PROMPT}`);
    expect(await promptNames(a)).toContain(DYNAMIC_PROMPT);
  });

  it('an instance started after changes has them before it serves', async () => {
    const prefix = uniqueKeyPrefix('dynamic-late');
    const a = await instance(prefix);
    await call(a, 'test_trigger_tool_change');
    await call(a, 'test_trigger_prompt_change');
    await call(a, 'test_trigger_prompt_change');

    const late = await instance(prefix);

    expect(await toolNames(late)).toContain(DYNAMIC_TOOL);
    expect(await promptNames(late)).not.toContain(DYNAMIC_PROMPT);
  });

  it('a trigger answers only once every subscribed instance confirmed, and fails when one does not', async () => {
    const prefix = uniqueKeyPrefix('dynamic-slow');
    const a = await instance(prefix, 1000);
    await fakeInstance(prefix, 300);

    const slow = await timed(() => call(a, 'test_trigger_tool_change'));
    expect(slow.value.isError).toBeUndefined();
    expect(slow.ms).toBeGreaterThanOrEqual(300);

    await fakeInstance(prefix, 'never');
    const stuck = await timed(() => call(a, 'test_trigger_tool_change'));
    expect(stuck.value).toMatchObject({
      isError: true,
      content: [{ text: `Removed ${DYNAMIC_TOOL}, but only 2 of 3 instances confirmed it` }],
    });
    expect(stuck.ms).toBeGreaterThanOrEqual(1000);
    // The change is stored and applied where it was confirmed.
    expect(await toolNames(a)).not.toContain(DYNAMIC_TOOL);
  });
});

describe('conformance fixture: runtime entries on one instance (no Redis)', () => {
  let app: HttpApp;

  beforeAll(async () => {
    app = await startHttpApp(ConformanceModule.forRoot());
  });

  afterAll(async () => {
    await app.close();
  });

  it('the triggers add and remove the entries in this process', async () => {
    expect((await call(app, 'test_trigger_tool_change')).content[0].text).toBe(`Added ${DYNAMIC_TOOL}`);
    expect(await toolNames(app)).toContain(DYNAMIC_TOOL);
    expect((await call(app, 'test_trigger_tool_change')).content[0].text).toBe(`Removed ${DYNAMIC_TOOL}`);
    expect(await toolNames(app)).not.toContain(DYNAMIC_TOOL);
    expect((await call(app, 'test_trigger_prompt_change')).content[0].text).toBe(`Added ${DYNAMIC_PROMPT}`);
    expect(await promptNames(app)).toContain(DYNAMIC_PROMPT);
  });
});
