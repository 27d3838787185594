/**
 * Redis high availability for tests, on free loopback ports with temporary dirs, all stopped by
 * `stop()`: a Sentinel set (a master, a replica and one sentinel with quorum 1) and a local Redis
 * Cluster (three masters, no replicas).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { startRedisServer, type RedisServerHandle } from './redis-server';
import { waitUntil } from './waiting';

const run = promisify(execFile);

/** A node's or a sentinel's address, as `redis.sentinel` and `redis.cluster` take it. */
export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

/** Sends one command to the Redis process on `port`; rejects when it does not answer. */
export async function redisCall(port: number, ...args: Array<string | number>): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 5_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const [command, ...rest] = args;
    return await client.call(String(command), ...rest);
  } finally {
    client.disconnect();
  }
}

/** Polls `probe` until it resolves true (a rejection counts as false), failing with `what` after `timeoutMs`. */
function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  return waitUntil(() => probe().catch(() => false), what, timeoutMs, { intervalMs: 100 });
}

async function stopAll(servers: RedisServerHandle[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop()));
}

/** A master, its replica and a sentinel watching them. */
export interface RedisSentinelSet {
  /** The master's name in the sentinel's configuration. */
  readonly name: string;
  readonly sentinels: RedisNodeAddress[];
  /** The two Redis servers, the first master at the start. */
  readonly servers: readonly RedisServerHandle[];
  /** The port of the master the sentinel names now. */
  masterPort(): Promise<number>;
  /**
   * `SENTINEL FAILOVER`, once the replica caught up: resolves the new master's port once the
   * sentinel names it, it answers as a master and the old master follows it.
   */
  failover(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a master, a replica of it and one sentinel (quorum 1), and waits until the sentinel knows both. */
export async function startRedisSentinelSet(name = 'mymaster'): Promise<RedisSentinelSet> {
  const started: RedisServerHandle[] = [];
  try {
    const master = await startRedisServer();
    started.push(master);
    const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(master.port)] });
    started.push(replica);
    await until('the replica in sync', async () =>
      String(await redisCall(replica.port, 'INFO', 'replication')).includes('master_link_status:up'),
    );
    const sentinel = await startRedisServer({
      binary: process.env.REDIS_SENTINEL ?? 'redis-sentinel',
      config: () =>
        [
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 10000`,
          '',
        ].join('\n'),
    });
    started.push(sentinel);
    const masterPort = async (): Promise<number> => {
      const [, port] = (await redisCall(sentinel.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as string[];
      return Number(port);
    };
    /** Whether the sentinel sees a replica of the current master that it could promote. */
    const replicaKnown = async (): Promise<boolean> => {
      const replicas = (await redisCall(sentinel.port, 'SENTINEL', 'REPLICAS', name)) as string[][];
      return replicas.some((fields) => {
        const info = new Map<string, string>();
        for (let index = 0; index + 1 < fields.length; index += 2) {
          info.set(fields[index], fields[index + 1]);
        }
        return info.get('flags') === 'slave' && info.get('master-link-status') === 'ok';
      });
    };
    await until('the sentinel knowing the replica', replicaKnown);
    return {
      name,
      sentinels: [{ host: '127.0.0.1', port: sentinel.port }],
      servers: [master, replica],
      masterPort,
      async failover() {
        const before = await masterPort();
        await until('a replica the sentinel can promote', replicaKnown);
        // What a failover can lose (writes the replica had not received) is not what this tests.
        const replicaPort = [master.port, replica.port].find((port) => port !== before)!;
        const offset = async (port: number, field: string): Promise<number> =>
          Number(new RegExp(`${field}:(\\d+)`).exec(String(await redisCall(port, 'INFO', 'replication')))?.[1]);
        const written = await offset(before, 'master_repl_offset');
        await until('the replica caught up', async () => (await offset(replicaPort, 'slave_repl_offset')) >= written);
        await redisCall(sentinel.port, 'SENTINEL', 'FAILOVER', name);
        await until('the sentinel naming the promoted replica', async () => (await masterPort()) !== before);
        const after = await masterPort();
        const role = async (port: number): Promise<string> => ((await redisCall(port, 'ROLE')) as [string])[0];
        await until('the promoted replica answering as master', async () => (await role(after)) === 'master');
        // The sentinel makes the old master a replica some seconds later, and disconnects its
        // clients then: the switch is over once nothing can still write there.
        await until('the old master following the new one', async () => (await role(before)) === 'slave', 30_000);
        return after;
      },
      async stop() {
        await stopAll(started.reverse());
      },
    };
  } catch (error) {
    await stopAll(started.reverse());
    throw error;
  }
}

/** A local Redis Cluster of masters only. */
export interface RedisClusterSet {
  readonly nodes: RedisNodeAddress[];
  readonly servers: readonly RedisServerHandle[];
  /** Removes every key of every node (FLUSHALL). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `masters` cluster nodes and joins them (`redis-cli --cluster create`), all slots covered. */
export async function startRedisCluster(masters = 3): Promise<RedisClusterSet> {
  const servers: RedisServerHandle[] = [];
  try {
    for (let index = 0; index < masters; index += 1) {
      servers.push(
        await startRedisServer({
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000'],
        }),
      );
    }
    const addresses = servers.map((server) => `127.0.0.1:${server.port}`);
    await run(process.env.REDIS_CLI ?? 'redis-cli', ['--cluster', 'create', ...addresses, '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const server of servers) {
      await until(`cluster node ${server.port} ready`, async () =>
        String(await redisCall(server.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
    }
    return {
      nodes: servers.map((server) => ({ host: '127.0.0.1', port: server.port })),
      servers,
      async flush() {
        await Promise.all(servers.map((server) => redisCall(server.port, 'FLUSHALL')));
      },
      async stop() {
        await stopAll(servers);
      },
    };
  } catch (error) {
    await stopAll(servers);
    throw error;
  }
}
