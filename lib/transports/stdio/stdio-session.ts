/**
 * The legacy session of one stdio connection: opened by its first legacy request (through the
 * legacy-session resolver, which answers the session limit), shared by every later one, fed
 * list changes and resource updates through its session channel, and closed with the
 * connection. A session the server ends is forgotten; the next legacy request opens another.
 */
import type { McpPrincipal } from '../../protocol/calls/call-context';
import type { LegacyResolution, LegacySessionPort, LegacyTarget } from '../../protocol/inbound';
import type { SessionHandle } from '../../protocol/messages/session-handle';
import type { LegacySessionResolver, SessionLookup } from '../../sessions/legacy-session.resolver';
import type { SessionChannel, SessionChannels } from '../../sessions/session-channels';

/** What the session works with. */
export interface StdioSessionDeps {
  readonly resolver: LegacySessionResolver;
  readonly channels: SessionChannels;
  /** Writes a server-initiated message (a notification) to the connection's output. */
  readonly notify: SessionChannel['send'];
  readonly warn: (message: string) => void;
}

type Opened = { readonly ok: true; readonly session: SessionHandle } | (SessionLookup & { readonly ok: false });

export class StdioSession implements LegacySessionPort {
  private session: SessionHandle | undefined;
  private opening: Promise<Opened> | undefined;
  private closing = false;

  /** The legacy session's stream: list changes, resource updates, elicitation completions. */
  private readonly channel: SessionChannel = {
    send: (message) => this.deps.notify(message),
    close: () => {
      if (!this.closing) {
        this.deps.warn(`Session ${this.session?.id ?? '?'} was closed by the server; a new one opens on demand`);
        this.session = undefined;
        this.opening = undefined;
      }
    },
  };

  constructor(
    private readonly principal: McpPrincipal,
    private readonly deps: StdioSessionDeps,
  ) {}

  /** The session open now, if any. */
  get handle(): SessionHandle | undefined {
    return this.session;
  }

  /**
   * The session of a legacy message: a request opens it if need be; a notification is served
   * within the session open now, or none.
   */
  async resolve(target: LegacyTarget): Promise<LegacyResolution> {
    if (target.id === null) {
      return { ok: true, session: this.session, revision: this.session?.state.protocolVersion };
    }
    this.opening ??= this.open();
    let opened: Opened;
    try {
      opened = await this.opening;
    } catch (error) {
      this.opening = undefined;
      throw error;
    }
    if (!opened.ok) {
      this.opening = undefined;
      return opened;
    }
    return { ok: true, session: opened.session, revision: opened.session.state.protocolVersion };
  }

  /** The session answers belong to: the one open, or the one being opened. */
  current(): SessionHandle | undefined | Promise<SessionHandle | undefined> {
    if (this.session === undefined && this.opening !== undefined) {
      return this.opening.then(
        (opened) => (opened.ok ? opened.session : undefined),
        () => undefined,
      );
    }
    return this.session;
  }

  /** A failed handshake keeps the connection's session: nothing to discard. */
  discard(): Promise<void> {
    return Promise.resolve();
  }

  /** Closes the session once the connection is over (after an opening under way settled). */
  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    if (this.session !== undefined) {
      this.closing = true;
      await this.deps.resolver.close(this.session.id);
    }
  }

  private async open(): Promise<Opened> {
    const found = await this.deps.resolver.open(this.principal);
    if (!found.ok) {
      return found;
    }
    const { record } = found;
    const session = this.deps.resolver.handle(record);
    // With a stream attached, McpNotifier reaches the session and the idle sweep keeps it. A
    // fresh session has no other stream: the reservation only tells the other instances.
    await this.deps.channels.reserve(record.id, 'get');
    this.deps.channels.attach(record.id, this.channel);
    this.session = session;
    return { ok: true, session };
  }
}
