/**
 * Stores of the application's own (`stores`): a session store and a bus implementing the
 * exported interfaces, wrapping the memory ones and counting calls, serve a real legacy client;
 * the token getters reach them, and `overrideProvider` replaces a built-in one.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  McpConfigurationError,
  McpHealthIndicator,
  McpModule,
  McpRegistry,
  McpTool,
  getMcpStoreToken,
  type McpEvent,
  type McpNotificationBus,
  type McpSessionRecord,
  type McpSessionStore,
} from '../../lib';
import type { McpSessionState } from '../../lib/protocol/messages/session-handle';
import { MemoryNotificationBus } from '../../lib/stores/memory/memory-notification.bus';
import { MemorySessionStore } from '../../lib/stores/memory/memory-session.store';
import { MemoryReplayStore } from '../../lib/stores/memory/memory-replay.store';
import { MemoryTaskStore } from '../../lib/stores/memory/memory-task.store';
import { type HttpApp, startHttpApp } from '../fixtures/http-app';
import { waitUntil } from '../fixtures/raw-rpc';

/** A session store of the application's own: the memory one behind a call counter. */
class CountingSessionStore implements McpSessionStore {
  readonly calls = new Map<string, number>();
  private readonly inner = new MemorySessionStore();

  count(): Promise<number> {
    return this.counted('count', () => this.inner.count());
  }
  create(record: McpSessionRecord): Promise<void> {
    return this.counted('create', () => this.inner.create(record));
  }
  // The memory store answers at once; this one answers with a promise, as a shared store does.
  get(id: string): Promise<McpSessionRecord | undefined> {
    return this.counted('get', async () => this.inner.get(id));
  }
  update(id: string, patch: Partial<McpSessionState>): Promise<McpSessionRecord | undefined> {
    return this.counted('update', () => this.inner.update(id, patch));
  }
  touch(id: string, at: number): Promise<void> {
    return this.counted('touch', () => this.inner.touch(id, at));
  }
  delete(id: string): Promise<boolean> {
    return this.counted('delete', () => this.inner.delete(id));
  }
  idleSince(cutoff: number): Promise<string[]> {
    return this.counted('idleSince', () => this.inner.idleSince(cutoff));
  }
  subscribe(id: string, uri: string): Promise<void> {
    return this.counted('subscribe', () => this.inner.subscribe(id, uri));
  }
  unsubscribe(id: string, uri: string): Promise<void> {
    return this.counted('unsubscribe', () => this.inner.unsubscribe(id, uri));
  }
  subscribers(uri: string): Promise<string[]> {
    return this.counted('subscribers', () => this.inner.subscribers(uri));
  }

  callsOf(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  private counted<T>(method: string, run: () => Promise<T>): Promise<T> {
    this.calls.set(method, this.callsOf(method) + 1);
    return run();
  }
}

/** A bus of the application's own: the memory one, recording what is published. */
class RecordingBus implements McpNotificationBus {
  readonly published: McpEvent[] = [];
  private readonly inner = new MemoryNotificationBus();

  publish(event: McpEvent): Promise<void> {
    this.published.push(event);
    return this.inner.publish(event);
  }
  subscribe(handler: (event: McpEvent) => void): () => void {
    return this.inner.subscribe(handler);
  }
}

@Injectable()
class EchoTools {
  @McpTool({ description: 'Echoes its text' })
  echo({ text }: { text?: string }) {
    return `echo: ${text ?? ''}`;
  }
}

/** An application service that injects the session store by its token. */
@Injectable()
class StoreConsumer {
  constructor(@Inject(getMcpStoreToken('sessions')) readonly store: McpSessionStore) {}
}

const SERVER = { name: 'custom-stores', version: '1.0.0' };

describe('stores of the application’s own', () => {
  let store: CountingSessionStore;
  let bus: RecordingBus;
  let running: HttpApp;

  beforeAll(async () => {
    store = new CountingSessionStore();
    bus = new RecordingBus();
    @Module({
      imports: [McpModule.forRoot({ ...SERVER, stores: { sessions: store, bus } })],
      providers: [EchoTools, StoreConsumer],
    })
    class AppModule {}
    running = await startHttpApp(AppModule);
  });

  afterAll(async () => {
    await running?.close();
  });

  it('serve a legacy client: the session is created, read and deleted through the given store', async () => {
    const client = new V1Client({ name: 'custom-stores-e2e', version: '1.0.0' });
    const transport = new V1Transport(running.url);
    await client.connect(transport);
    expect(store.callsOf('create')).toBe(1);
    expect(await store.count()).toBe(1);
    const readsBefore = store.callsOf('get');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result).toEqual(expect.objectContaining({ content: [{ type: 'text', text: 'echo: hi' }] }));
    expect(store.callsOf('get')).toBeGreaterThan(readsBefore);
    await transport.terminateSession();
    await client.close();
    await waitUntil(() => store.callsOf('delete') === 1, 'the session deleted from the given store');
    expect(await store.count()).toBe(0);
  });

  it('are what the token getters inject, in the module and in the application', () => {
    expect(running.app.get(getMcpStoreToken('sessions'))).toBe(store);
    expect(running.app.get(getMcpStoreToken('bus'))).toBe(bus);
    expect(running.app.get(StoreConsumer).store).toBe(store);
    // The kinds not given stay built in.
    expect(running.app.get(getMcpStoreToken('replay'))).toBeInstanceOf(MemoryReplayStore);
    expect(running.app.get(getMcpStoreToken('tasks'))).toBeInstanceOf(MemoryTaskStore);
  });

  it('carry the registry’s changes through the given bus', async () => {
    const before = bus.published.length;
    running.app.get(McpRegistry).addTool({ name: 'late', handler: () => 'late' });
    await waitUntil(() => bus.published.length > before, 'a published list change');
    expect(bus.published.slice(before)).toContainEqual({ type: 'list_changed', list: 'tools' });
  });

  it('report to the health indicator as a custom store', async () => {
    const health = await running.app.get(McpHealthIndicator).isHealthy();
    expect(health.mcp.stores).toEqual(
      expect.objectContaining({ status: 'up', kind: 'custom', sessions: expect.any(Number) }),
    );
  });

  it('are down in the health indicator when the given store fails', async () => {
    const failing = jest.spyOn(store, 'count').mockRejectedValueOnce(new Error('database away'));
    try {
      const health = await running.app.get(McpHealthIndicator).isHealthy();
      expect(health.mcp.stores).toEqual({ status: 'down', kind: 'custom', message: 'database away' });
    } finally {
      failing.mockRestore();
    }
  });
});

describe('the store tokens', () => {
  it('let a test replace a built-in store with overrideProvider', async () => {
    const store = new CountingSessionStore();
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot(SERVER)],
    })
      .overrideProvider(getMcpStoreToken('sessions'))
      .useValue(store)
      .compile();
    try {
      expect(moduleRef.get(getMcpStoreToken('sessions'))).toBe(store);
    } finally {
      await moduleRef.close();
    }
  });

  it('refuse stores beside redis at startup', async () => {
    const compiling = Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          ...SERVER,
          redis: { url: 'redis://127.0.0.1:1' },
          stores: { sessions: new CountingSessionStore() },
        }),
      ],
    }).compile();
    await expect(compiling).rejects.toThrow(McpConfigurationError);
    await expect(compiling).rejects.toThrow(/"stores": cannot be combined with redis/);
  });
});
