/**
 * The GET resumes of each session waiting on the replay store. A session that ends meanwhile
 * fails them: the client gets 404 rather than a stream of a session that is gone.
 */
export class PendingResumes {
  /** Per session, the end flags of its resumes under way. */
  private readonly bySession = new Map<string, Set<{ ended: boolean }>>();

  /** How many sessions have resumes under way. */
  get size(): number {
    return this.bySession.size;
  }

  /**
   * Runs `read` as a resume of `sessionId`; resolves with what it read and whether the session
   * ended while it did.
   */
  async during<T>(sessionId: string, read: () => Promise<T>): Promise<{ value: T; ended: boolean }> {
    const ticket = { ended: false };
    let tickets = this.bySession.get(sessionId);
    if (tickets === undefined) {
      tickets = new Set();
      this.bySession.set(sessionId, tickets);
    }
    tickets.add(ticket);
    try {
      const value = await read();
      return { value, ended: ticket.ended };
    } finally {
      tickets.delete(ticket);
      if (tickets.size === 0 && this.bySession.get(sessionId) === tickets) {
        this.bySession.delete(sessionId);
      }
    }
  }

  /** The session ended: the resumes under way fail. */
  sessionEnded(sessionId: string): void {
    this.bySession.get(sessionId)?.forEach((ticket) => (ticket.ended = true));
  }
}
