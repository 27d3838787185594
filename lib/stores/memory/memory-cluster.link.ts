import { randomBytes } from 'node:crypto';
import type { ClusterLink, ClusterMessage, StreamClaim } from '../../cluster/cluster-link.interface';

/**
 * The default link: one instance alone. It keeps the stream claims of this process, and has
 * no one to send messages to.
 */
export class MemoryClusterLink implements ClusterLink {
  readonly instanceId = randomBytes(8).toString('hex');
  readonly shared = false;
  private readonly claims = new Map<string, StreamClaim['kind']>();

  async send(_instanceId: string, _message: ClusterMessage): Promise<void> {
    // No other instance.
  }

  async broadcast(_message: ClusterMessage): Promise<void> {
    // No other instance.
  }

  onMessage(_handler: (message: ClusterMessage) => void): () => void {
    return () => undefined;
  }

  async claimStream(sessionId: string, kind: StreamClaim['kind']): Promise<boolean> {
    if (this.claims.has(sessionId)) {
      return false;
    }
    this.claims.set(sessionId, kind);
    return true;
  }

  async releaseStream(sessionId: string): Promise<void> {
    this.claims.delete(sessionId);
  }

  async streamHolder(sessionId: string): Promise<StreamClaim | undefined> {
    const kind = this.claims.get(sessionId);
    return kind === undefined ? undefined : { instanceId: this.instanceId, kind };
  }

  async close(): Promise<void> {
    this.claims.clear();
  }
}
