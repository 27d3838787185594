/**
 * The view of a legacy session the engine works with. The session service implements it; the
 * engine reads the negotiated state and records what `initialize`, `logging/setLevel` and
 * `resources/subscribe` change.
 */
import type { McpRevision } from './revisions';
import type { LoggingLevel } from './log-levels';
import type { ClientCapabilities, Implementation } from './mcp-types';

/** What a legacy session remembers between requests. */
export interface McpSessionState {
  /** The revision agreed at `initialize`; `undefined` until then. */
  protocolVersion?: McpRevision;
  /** The capabilities the client declared at `initialize`. */
  clientCapabilities: ClientCapabilities;
  /** The client's name and version, as given at `initialize`. */
  clientInfo?: Implementation;
  /** The minimum level of log messages the client asked for. */
  logLevel: LoggingLevel;
  /** Whether `initialize` has completed. */
  initialized: boolean;
}

export interface SessionHandle {
  readonly id: string;
  readonly state: Readonly<McpSessionState>;
  /** Records a change of the session's state. */
  update(patch: Partial<McpSessionState>): Promise<void>;
  /** Subscribes the session to updates of a resource. */
  subscribe(uri: string): Promise<void>;
  /** Ends a subscription; unknown URIs are ignored. */
  unsubscribe(uri: string): Promise<void>;
}
