/**
 * Legacy era: the requests this server sent to clients (elicitation, sampling, roots) and are
 * waiting for an answer. An answer arrives as a JSON-RPC response the client POSTs on its
 * session; it is matched on the session and the id, never on the id alone, so a client can only
 * answer its own session's requests.
 */
import {
  McpErrorCode,
  isJsonObject,
  type JSONObject,
  type RequestId,
  type JSONRPCResponse,
} from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';

/**
 * The server stopped waiting for a client's answer (a timeout, or the call ended): the client
 * may still be working on the request, and is told to stop.
 */
export class ClientRequestAbandoned extends McpError {
  constructor(message: string) {
    super(McpErrorCode.InternalError, message);
    this.name = 'ClientRequestAbandoned';
  }
}

interface Waiting {
  resolve(result: JSONObject): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

export class ClientRequestTable {
  private nextId = 1;
  private readonly byScope = new Map<string, Map<RequestId, Waiting>>();

  /**
   * @param idPrefix with several instances: ids are strings that start with it, so that an
   * answer reaching another instance names the instance it is for.
   */
  constructor(private readonly idPrefix?: string) {}

  /** A fresh id for a request to a client (ids are never reused within a process). */
  newId(): RequestId {
    const id = this.nextId++;
    return this.idPrefix === undefined ? id : `${this.idPrefix}${id}`;
  }

  /**
   * Waits for the answer to request `id` of `scope` (a session). Rejects on an error answer,
   * after `timeoutMs` (0: never), when `signal` aborts (the call ended) and when the scope ends.
   */
  wait(scope: string, id: RequestId, method: string, timeoutMs: number, signal: AbortSignal): Promise<JSONObject> {
    return new Promise<JSONObject>((resolve, reject) => {
      let waiting = this.byScope.get(scope);
      if (waiting === undefined) {
        waiting = new Map();
        this.byScope.set(scope, waiting);
      }
      const table = waiting;
      const onAbort = (): void => settle(() => reject(new ClientRequestAbandoned(reasonOf(signal.reason))));
      const settle = (then: () => void): void => {
        if (table.get(id) !== entry) {
          return;
        }
        table.delete(id);
        if (table.size === 0 && this.byScope.get(scope) === table) {
          this.byScope.delete(scope);
        }
        if (entry.timer !== undefined) {
          clearTimeout(entry.timer);
        }
        signal.removeEventListener('abort', onAbort);
        then();
      };
      const entry: Waiting = {
        resolve: (result) => settle(() => resolve(result)),
        reject: (error) => settle(() => reject(error)),
        timer: undefined,
      };
      if (timeoutMs > 0) {
        entry.timer = setTimeout(
          () => entry.reject(new ClientRequestAbandoned(`The client did not answer ${method} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        entry.timer.unref?.();
      }
      table.set(id, entry);
      if (signal.aborted) {
        onAbort();
      } else {
        signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /**
   * Delivers a client's answer. Returns `false` when no request of that scope waits for it (an
   * unknown, answered or foreign id): such answers are dropped.
   */
  deliver(scope: string, response: JSONRPCResponse): boolean {
    if (response.id === null) {
      return false;
    }
    const entry = this.byScope.get(scope)?.get(response.id);
    if (entry === undefined) {
      return false;
    }
    if ('error' in response) {
      const { code, message, data } = response.error;
      entry.reject(new McpError(typeof code === 'number' ? code : McpErrorCode.InternalError, String(message), data));
    } else {
      entry.resolve(isJsonObject(response.result) ? response.result : {});
    }
    return true;
  }

  /** Fails every request a scope is waiting on (its session ended). */
  failScope(scope: string, reason: string): void {
    const waiting = this.byScope.get(scope);
    if (waiting === undefined) {
      return;
    }
    for (const entry of [...waiting.values()]) {
      entry.reject(new McpError(McpErrorCode.InternalError, reason));
    }
  }

  /** How many requests of `scope` wait for their answers. */
  pendingIn(scope: string): number {
    return this.byScope.get(scope)?.size ?? 0;
  }

  /** Whether the request `id` of `scope` still waits for its answer. */
  isWaiting(scope: string, id: RequestId): boolean {
    return this.byScope.get(scope)?.has(id) === true;
  }

  /** How many answers are awaited, over all scopes. */
  get size(): number {
    let size = 0;
    this.byScope.forEach((waiting) => (size += waiting.size));
    return size;
  }
}

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : 'Request cancelled';
}
