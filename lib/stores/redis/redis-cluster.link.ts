import { randomBytes } from 'node:crypto';
import type { ClusterLink, ClusterMessage, StreamClaim } from '../../cluster/cluster-link.interface';
import { redisScript, type RedisHub } from './redis-hub';
import { McpLogger } from '../../telemetry/mcp.logger';

/** How long a claim lives without being refreshed: an instance that died frees its streams' sessions after this. */
const CLAIM_TTL_MS = 30_000;
/** How often this instance refreshes its claims. */
const CLAIM_REFRESH_MS = 10_000;

/** Extends a claim only while it is still this instance's. */
const REFRESH = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`);

/** Deletes a claim only while it is still this instance's. */
const RELEASE = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`);

interface Envelope {
  readonly from: string;
  readonly message: ClusterMessage;
}

/**
 * The link between instances over Redis: each instance listens on a channel of its own and on
 * one shared by all. Stream claims are keys naming the instance, with a TTL that the holder
 * refreshes while it lives.
 */
export class RedisClusterLink implements ClusterLink {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly shared = true;
  private readonly logger = new McpLogger('McpRedisClusterLink');
  private readonly handlers = new Set<(message: ClusterMessage) => void>();
  /** The claims of this instance, by session id. */
  private readonly claims = new Map<string, StreamClaim['kind']>();
  private readonly stops: Array<() => void> = [];
  private refresher: NodeJS.Timeout | undefined;

  private constructor(private readonly hub: RedisHub) {}

  /** A link listening on its channels. */
  static async create(hub: RedisHub): Promise<RedisClusterLink> {
    const link = new RedisClusterLink(hub);
    const receive = (payload: string): void => link.receive(payload);
    link.stops.push(await hub.subscribe(hub.key('link', link.instanceId), receive));
    link.stops.push(await hub.subscribe(hub.key('link', 'all'), receive));
    link.refresher = setInterval(() => void link.refresh(), CLAIM_REFRESH_MS);
    link.refresher.unref();
    return link;
  }

  async send(instanceId: string, message: ClusterMessage): Promise<void> {
    if (instanceId === this.instanceId) {
      return;
    }
    await this.hub.publish(this.hub.key('link', instanceId), this.envelope(message));
  }

  async broadcast(message: ClusterMessage): Promise<void> {
    await this.hub.publish(this.hub.key('link', 'all'), this.envelope(message));
  }

  onMessage(handler: (message: ClusterMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async claimStream(sessionId: string, kind: StreamClaim['kind']): Promise<boolean> {
    const set = await this.hub.run('claim a stream', (client) =>
      client.set(this.claimKey(sessionId), this.claimValue(kind), 'PX', CLAIM_TTL_MS, 'NX'),
    );
    if (set !== 'OK') {
      return false;
    }
    this.claims.set(sessionId, kind);
    return true;
  }

  async releaseStream(sessionId: string): Promise<void> {
    const kind = this.claims.get(sessionId);
    if (kind === undefined) {
      return;
    }
    this.claims.delete(sessionId);
    await this.hub.eval('release a stream', RELEASE, [this.claimKey(sessionId)], [this.claimValue(kind)]);
  }

  async streamHolder(sessionId: string): Promise<StreamClaim | undefined> {
    const value = await this.hub.run('find a stream', (client) => client.get(this.claimKey(sessionId)));
    if (value === null) {
      return undefined;
    }
    const [instanceId, kind] = value.split(' ');
    return kind === 'get' || kind === 'pair' ? { instanceId, kind } : undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.refresher);
    this.stops.splice(0).forEach((stop) => stop());
    this.handlers.clear();
    const claims = [...this.claims.keys()];
    await Promise.all(claims.map((sessionId) => this.releaseStream(sessionId).catch(() => undefined)));
  }

  private async refresh(): Promise<void> {
    for (const [sessionId, kind] of this.claims) {
      try {
        const kept = await this.hub.eval(
          'refresh a stream claim',
          REFRESH,
          [this.claimKey(sessionId)],
          [this.claimValue(kind), CLAIM_TTL_MS],
        );
        if (kept === 0 && this.claims.get(sessionId) === kind) {
          // Lost while Redis was away (it expired, someone else holds it now): claim it again.
          await this.hub.run('claim a stream', (client) =>
            client.set(this.claimKey(sessionId), this.claimValue(kind), 'PX', CLAIM_TTL_MS, 'NX'),
          );
        }
      } catch (error) {
        this.logger.warn(`Could not refresh stream claims: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
  }

  private claimKey(sessionId: string): string {
    return this.hub.key('stream', sessionId);
  }

  private claimValue(kind: StreamClaim['kind']): string {
    return `${this.instanceId} ${kind}`;
  }

  private envelope(message: ClusterMessage): string {
    const envelope: Envelope = { from: this.instanceId, message };
    return JSON.stringify(envelope);
  }

  private receive(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      this.logger.warn('Dropped a cluster message that is not JSON');
      return;
    }
    if (envelope.from === this.instanceId) {
      return;
    }
    for (const handler of this.handlers) {
      try {
        handler(envelope.message);
      } catch (error) {
        this.logger.error(
          `A ${envelope.message.type} handler failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}
