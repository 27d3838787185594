/**
 * The tool and the prompt that `test_trigger_tool_change` and `test_trigger_prompt_change` add
 * and remove at runtime, on every instance of the fixture.
 *
 * `McpRegistry` is per process (it holds handler functions), so `addTool` on one instance adds
 * the tool there only, while the `list_changed` it sends reaches clients on every instance (the
 * notification bus is shared). Behind a round-robin balancer consecutive `tools/list` requests
 * would then see different sets. This is the recipe the README gives for several instances:
 *
 * - the state is kept in Redis, as a version per entry (odd: present, even: absent, so a toggle
 *   is one `INCR`), and every instance applies it to its own registry;
 * - a change is one Lua script: `INCR` the version and `PUBLISH` it; PUBLISH answers how many
 *   instances are subscribed, and each applies the change (it ignores versions it already has)
 *   and acknowledges it on the changing instance's own channel;
 * - the trigger answers only once every subscribed instance acknowledged: the client's next
 *   request, wherever the balancer sends it, finds the change applied. (Waiting for a few
 *   milliseconds would usually do, but only usually.)
 * - an instance subscribes first, then reads the versions: one that starts during a change
 *   either is counted by the PUBLISH and acknowledges it, or reads the version the script
 *   already wrote. It reads them again when its subscription reconnects.
 *
 * Without Redis the trigger changes this process's registry, as it always did.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { McpRegistry, type McpRedisOptions } from 'nest-mcp';

/** The tool and the prompt that the trigger tools add and remove, so that their lists really change. */
export const DYNAMIC_TOOL = 'test_dynamic_tool';
export const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/** Which runtime entry a trigger toggles. */
export type DynamicEntry = 'tool' | 'prompt';

const ENTRIES: readonly DynamicEntry[] = ['tool', 'prompt'];

/** Where the instances share the dynamic entries: the fixture's Redis, when it has one. */
export const CONFORMANCE_SHARED_LISTS = Symbol('CONFORMANCE_SHARED_LISTS');

export interface SharedListsOptions {
  /**
   * The Redis the instances share (the module's `redis`: a URL, a Sentinel set or a cluster);
   * without it, the entries live in this process.
   */
  readonly redis?: Pick<McpRedisOptions, 'url' | 'sentinel' | 'cluster'>;
  /**
   * Prefix of the fixture's own keys and channels: the application's, not under the module's
   * `redis.keyPrefix` (on a cluster, made a hash tag: `{conformance}:`). @default 'conformance:'
   */
  readonly keyPrefix?: string;
  /** How long a change waits for the other instances' acknowledgements, in ms. @default 5000 */
  readonly ackTimeoutMs?: number;
}

/** What a toggle did. */
export interface DynamicChange {
  /** Whether the entry is there after the change. */
  readonly present: boolean;
  /** The instances that had to apply it (1 without Redis). */
  readonly instances: number;
  /** How many of them acknowledged it in time. */
  readonly applied: number;
}

/**
 * `INCR` the entry's version and publish it, in one step: the order of versions is the order of
 * messages. On a cluster PUBLISH would count the subscribers of one node only: there the channels
 * are sharded (SPUBLISH, SSUBSCRIBE) in the keys' slot, so that the count is every instance's.
 */
const toggleScript = (publish: 'PUBLISH' | 'SPUBLISH'): string => `
local version = redis.call('INCR', KEYS[1])
local instances = redis.call('${publish}', ARGV[1], ARGV[2] .. ' ' .. version .. ' ' .. ARGV[3])
return { version, instances }`;

interface Shared {
  readonly client: Redis | Cluster;
  readonly subscriber: Redis | Cluster;
  /** Sharded pub/sub (a cluster). */
  readonly sharded: boolean;
  readonly changes: string;
  /** The channel on which instance `instanceId` hears the acknowledgements of its own changes. */
  readonly acksOf: (instanceId: string) => string;
  readonly versionKey: (entry: DynamicEntry) => string;
}

@Injectable()
export class DynamicLists implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DynamicLists');
  private readonly instanceId = randomUUID();
  private shared: Shared | undefined;
  /** The latest version applied here, per entry. */
  private readonly versions: Record<DynamicEntry, number> = { tool: 0, prompt: 0 };
  /**
   * Acknowledgements received for this instance's changes, by `<entry> <version>`: counted as they
   * come, since they may come before the script's own answer (another connection).
   */
  private readonly acks = new Map<string, number>();
  /** The changes of this instance waiting for acknowledgements: how many they need, and how to wake them. */
  private readonly waiters = new Map<string, { readonly needed: number; readonly wake: () => void }>();

  constructor(
    private readonly registry: McpRegistry,
    @Inject(CONFORMANCE_SHARED_LISTS) private readonly options: SharedListsOptions,
  ) {}

  /** Before the server listens: with Redis, subscribe, then catch up with the stored versions. */
  async onApplicationBootstrap(): Promise<void> {
    const { redis } = this.options;
    if (redis === undefined) {
      return;
    }
    const sharded = redis.cluster !== undefined;
    const given = this.options.keyPrefix ?? 'conformance:';
    const prefix = sharded && !given.includes('{') ? `{${given.replace(/:$/, '')}}:` : given;
    let client: Redis | Cluster;
    let subscriber: Redis | Cluster;
    if (redis.cluster !== undefined) {
      const { nodes, ...auth } = redis.cluster;
      client = new Cluster(nodes, { lazyConnect: true, shardedSubscribers: true, redisOptions: auth });
      subscriber = client.duplicate();
    } else {
      client =
        redis.url !== undefined
          ? new Redis(redis.url, { lazyConnect: true })
          : new Redis({ ...redis.sentinel, lazyConnect: true });
      subscriber = client.duplicate();
    }
    const shared: Shared = {
      client,
      subscriber,
      sharded,
      changes: `${prefix}dynamic:changes`,
      acksOf: (instanceId) => `${prefix}dynamic:acks:${instanceId}`,
      versionKey: (entry) => `${prefix}dynamic:${entry}`,
    };
    this.shared = shared;
    client.on('error', (error: Error) => this.logger.warn(`Redis: ${error.message}`));
    subscriber.on('error', (error: Error) => this.logger.warn(`Redis (subscriber): ${error.message}`));
    await client.connect();
    subscriber.on(sharded ? 'smessage' : 'message', (channel: string, message: string) =>
      this.received(channel, message),
    );
    if (sharded) {
      await subscriber.ssubscribe(shared.changes, shared.acksOf(this.instanceId));
    } else {
      await subscriber.subscribe(shared.changes, shared.acksOf(this.instanceId));
    }
    await this.catchUp();
    // ioredis resubscribes after a reconnection; changes published meanwhile were missed.
    subscriber.on('ready', () => {
      this.catchUp().catch((error: unknown) =>
        this.logger.warn(`Could not read the dynamic entries: ${String(error)}`),
      );
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const shared = this.shared;
    this.shared = undefined;
    this.waiters.forEach(({ wake }) => wake());
    if (shared !== undefined) {
      await Promise.allSettled([shared.subscriber.quit(), shared.client.quit()]);
    }
  }

  /** Adds the entry if it is absent, removes it if present: on every instance before it resolves. */
  async toggle(entry: DynamicEntry): Promise<DynamicChange> {
    const shared = this.shared;
    if (shared === undefined) {
      const present = !this.isPresent(entry);
      this.setPresent(entry, present);
      return { present, instances: 1, applied: 1 };
    }
    const [version, instances] = (await shared.client.eval(
      toggleScript(shared.sharded ? 'SPUBLISH' : 'PUBLISH'),
      1,
      shared.versionKey(entry),
      shared.changes,
      entry,
      this.instanceId,
    )) as [number, number];
    const applied = await this.acknowledged(`${entry} ${version}`, instances);
    if (applied < instances) {
      this.logger.warn(
        `${entry} version ${version}: ${applied} of ${instances} instances acknowledged within ${this.ackTimeout()} ms`,
      );
    }
    return { present: version % 2 === 1, instances, applied };
  }

  private ackTimeout(): number {
    return this.options.ackTimeoutMs ?? 5000;
  }

  /** Resolves how many acknowledgements of `key` came, once `instances` did or the timeout passed. */
  private async acknowledged(key: string, instances: number): Promise<number> {
    if ((this.acks.get(key) ?? 0) < instances) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, this.ackTimeout());
        function wake(): void {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.set(key, { needed: instances, wake });
      });
      this.waiters.delete(key);
    }
    const applied = this.acks.get(key) ?? 0;
    this.acks.delete(key);
    return applied;
  }

  private received(channel: string, message: string): void {
    const shared = this.shared;
    if (shared === undefined) {
      return;
    }
    if (channel === shared.acksOf(this.instanceId)) {
      const count = (this.acks.get(message) ?? 0) + 1;
      this.acks.set(message, count);
      const waiter = this.waiters.get(message);
      if (waiter !== undefined && count >= waiter.needed) {
        waiter.wake();
      }
      return;
    }
    const [entry, version, origin] = message.split(' ');
    if (!ENTRIES.includes(entry as DynamicEntry) || origin === undefined) {
      this.logger.warn(`Ignoring a malformed change message: ${message}`);
      return;
    }
    this.apply(entry as DynamicEntry, Number(version));
    // Acknowledged even when it was stale here: what the changer waits for is "at least this version".
    const ack = `${entry} ${version}`;
    (shared.sharded
      ? shared.client.spublish(shared.acksOf(origin), ack)
      : shared.client.publish(shared.acksOf(origin), ack)
    ).catch((error: unknown) => this.logger.warn(`Could not acknowledge ${message}: ${String(error)}`));
  }

  private async catchUp(): Promise<void> {
    const shared = this.shared;
    if (shared === undefined) {
      return;
    }
    const stored = await shared.client.mget(...ENTRIES.map(shared.versionKey));
    ENTRIES.forEach((entry, index) => this.apply(entry, Number(stored[index] ?? 0)));
  }

  private apply(entry: DynamicEntry, version: number): void {
    if (!Number.isSafeInteger(version) || version <= this.versions[entry]) {
      return;
    }
    this.versions[entry] = version;
    this.setPresent(entry, version % 2 === 1);
  }

  private isPresent(entry: DynamicEntry): boolean {
    return entry === 'tool'
      ? this.registry.getTool(DYNAMIC_TOOL) !== undefined
      : this.registry.getPrompt(DYNAMIC_PROMPT) !== undefined;
  }

  /** Adds or removes the entry in this process's registry (each change sends its `list_changed`). */
  private setPresent(entry: DynamicEntry, present: boolean): void {
    if (present === this.isPresent(entry)) {
      return;
    }
    if (entry === 'tool') {
      if (present) {
        this.registry.addTool({
          name: DYNAMIC_TOOL,
          description: 'A tool added at runtime by test_trigger_tool_change',
          handler: () => 'This tool was added at runtime.',
        });
      } else {
        this.registry.removeTool(DYNAMIC_TOOL);
      }
    } else if (present) {
      this.registry.addPrompt({
        name: DYNAMIC_PROMPT,
        description: 'A prompt added at runtime by test_trigger_prompt_change',
        handler: () => 'This prompt was added at runtime.',
      });
    } else {
      this.registry.removePrompt(DYNAMIC_PROMPT);
    }
  }
}
