/**
 * The last step of every request: a handler's result completed for its era (cache hints,
 * `resultType`, the `serverInfo` stamp), or its failure turned into the error the client may
 * see, the details going to the log.
 */
import { McpErrorCode, failure, isJsonObject, success, type JSONObject, type RequestId } from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import { CallStoppedError } from './calls/call-scope';
import { META_KEYS } from './messages/request-meta';
import { renderImplementation } from './calls/render';
import type { MethodTable } from './methods';
import { isStoreUnavailable, logStoreUnavailable, STORE_UNAVAILABLE_MESSAGE } from './bounds/store-unavailable';
import { RefusalLog } from './bounds/refusal-log';
import type { EngineLogger, EngineOptions } from './calls/engine-options';
import type { EngineOutcome } from './calls/transport-contract';
import type { ResolvedRequest } from './calls/resolved-request';
import { merged } from './messages/object-copies';
import { logMessage, logStack, logText } from './bounds/log-text';

/** Nothing to send: a notification, or a request that was cancelled. */
export const NO_OUTCOME: EngineOutcome = Object.freeze({ type: 'none' });

/**
 * Logs a handler failure once, with what finds it (the method and its target, the request id,
 * the caller) and the stack; the client only sees a generic error. What the client sent (the
 * target, the id) and what the message may quote of it are escaped (see `logText`).
 */
export function logFailure(logger: EngineLogger, request: ResolvedRequest, error: unknown): void {
  const detail = logMessage(error);
  const { name, uri } = request.params;
  const target = typeof name === 'string' ? ` ${logText(name)}` : typeof uri === 'string' ? ` ${logText(uri)}` : '';
  logger.error(
    `${request.method}${target} failed (request ${logText(request.id)}, principal ${logText(request.principal.id)}): ${detail}`,
    logStack(error),
  );
}

export class ResultFinisher {
  /** The modern `_meta` stamp (`serverInfo`) rendered per revision. */
  private readonly metaByRevision = new Map<string | undefined, JSONObject>();

  /** Store outages: one warning a minute (unless the store logged it), the rest as debug lines. */
  private readonly outages: RefusalLog;

  constructor(
    private readonly options: EngineOptions,
    /** The engine's methods: which are cacheable. */
    private readonly methods: MethodTable,
    /** How a handler's unexpected failure is logged (the engine's `logFailure`, which the observer hears too). */
    private readonly logHandlerFailure: (request: ResolvedRequest, error: unknown) => void = (request, error) =>
      logFailure(options.logger, request, error),
  ) {
    this.outages = new RefusalLog(options.logger);
  }

  /** The answer carrying `result`, finished for the request's era. */
  result(request: ResolvedRequest, result: JSONObject): EngineOutcome {
    return { type: 'response', response: success(request.id, this.finish(request, result)) };
  }

  /** The answer carrying `error`. */
  error(id: RequestId, error: McpError): EngineOutcome {
    return { type: 'response', response: failure(id, error.code, error.message, error.data) };
  }

  /**
   * The answer to a request whose handler threw: nothing for a request the client cancelled,
   * an error for one the server stopped, the protocol error as thrown, an outage (marked
   * `storeUnavailable`, for the transports' status tables) when the shared store cannot serve,
   * and a generic error (logged) for anything else.
   */
  failure(request: ResolvedRequest, error: unknown): EngineOutcome {
    const { scope } = request;
    if (scope.aborted && scope.reason instanceof CallStoppedError) {
      // Stopped by the server (a deadline, a shutdown), not by the client: the client is told.
      const code = request.era === 'modern' ? McpErrorCode.InternalError : McpErrorCode.ServerError;
      return this.error(request.id, new McpError(code, scope.reason.message));
    }
    if (scope.aborted) {
      return NO_OUTCOME;
    }
    if (error instanceof McpError) {
      return this.error(request.id, error);
    }
    if (isStoreUnavailable(error)) {
      // The shared store is away: a condition to retry after, not a bug in the handler.
      logStoreUnavailable(this.outages, `${request.method} (request ${logText(request.id)})`, error);
      return {
        type: 'response',
        response: failure(request.id, McpErrorCode.InternalError, STORE_UNAVAILABLE_MESSAGE),
        storeUnavailable: true,
      };
    }
    this.logHandlerFailure(request, error);
    return this.error(request.id, new McpError(McpErrorCode.InternalError, 'Internal error'));
  }

  /** Adds cache hints and, in the modern era, `resultType` and `serverInfo`. */
  finish(request: ResolvedRequest, result: JSONObject): JSONObject {
    if (request.era !== 'modern') {
      return result;
    }
    // Handlers return objects of their own making (a handler's CallToolResult is copied when it
    // is read), so the result is completed in place.
    const finished = result;
    if (finished.resultType === undefined) {
      finished.resultType = 'complete';
    }
    const cacheable = finished.resultType === 'complete' ? this.methods.entry(request.method)?.cacheable : undefined;
    if (cacheable !== undefined) {
      const hint = cacheable === 'discover' ? this.options.discoverCacheHints : this.options.cacheHints;
      if (finished.ttlMs === undefined) {
        finished.ttlMs = hint.ttlMs;
      }
      if (finished.cacheScope === undefined) {
        finished.cacheScope = hint.scope;
      }
    }
    let stamp = this.metaByRevision.get(request.revision);
    if (stamp === undefined) {
      stamp = { [META_KEYS.serverInfo]: renderImplementation(this.options.serverInfo, request.revision) };
      this.metaByRevision.set(request.revision, stamp);
    }
    // Results without a `_meta` of their own share one (it is only ever serialized).
    finished._meta = isJsonObject(finished._meta) ? merged(finished._meta, stamp) : stamp;
    return finished;
  }
}
