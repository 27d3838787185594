import { randomBytes } from 'node:crypto';
import type { ClaimWatcher, ClusterLink, ClusterMessage, StreamClaim } from '../../cluster/cluster-link.interface';

/**
 * The default link: one instance alone. It keeps the stream claims of this process, and has
 * no one to send messages to.
 */
export class MemoryClusterLink implements ClusterLink {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly shared: boolean = false;
  private readonly claims = new Map<string, StreamClaim>();

  async send(_instanceId: string, _message: ClusterMessage): Promise<boolean> {
    // No other instance.
    return false;
  }

  async broadcast(_message: ClusterMessage): Promise<void> {
    // No other instance.
  }

  onMessage(_handler: (message: ClusterMessage) => void): () => void {
    return () => undefined;
  }

  async claimStream(sessionId: string, kind: StreamClaim['kind'], streamId?: string): Promise<boolean> {
    if (this.claims.has(sessionId)) {
      return false;
    }
    this.claims.set(sessionId, { instanceId: this.instanceId, kind, ...(streamId === undefined ? {} : { streamId }) });
    return true;
  }

  async releaseStream(sessionId: string): Promise<void> {
    this.claims.delete(sessionId);
  }

  async streamHolder(sessionId: string): Promise<StreamClaim | undefined> {
    return this.claims.get(sessionId);
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return instanceId === this.instanceId;
  }

  async streamsOf(_instanceId: string): Promise<Array<{ sessionId: string; streamId: string }>> {
    // No other instance.
    return [];
  }

  watchClaims(_watcher: ClaimWatcher): () => void {
    // Its sessions live in this process: none vanishes without ending here.
    return () => undefined;
  }

  async close(): Promise<void> {
    this.claims.clear();
  }
}
