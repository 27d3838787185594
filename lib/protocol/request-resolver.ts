/**
 * The check ladder: what a request must pass before its handler runs, in one fixed order per
 * era, each rung with its own error.
 *   legacy: method served by the era (and the session's revision, on this transport)? (-32601)
 *   modern: `_meta` envelope complete? (-32602) → headers agree with the body? (-32020)
 *           → version supported? (-32022) → method served by the era on this transport? (-32601)
 *           → a retry's `requestState` valid? (-32602)
 * What passes is a `ResolvedRequest`: the era, revision, principal, client capabilities and log
 * level settled once for the handler.
 */
import { eraOf, isRevision, type McpEra, type McpRevision } from './messages/revisions';
import { McpErrorCode, type JSONObject, type JSONRPCRequest } from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import { CallScope } from './calls/call-scope';
import { checkStandardHeaders, headerValue } from './messages/request-headers';
import { readModernEnvelope } from './messages/request-meta';
import { servesMethod, type MethodGate } from './methods';
import { ANONYMOUS_PRINCIPAL } from './bounds/principal';
import type { LoggingLevel } from './messages/log-levels';
import type { RoundInputs } from './calls/input-round';
import type { RoundTrips } from './round-trips';
import type { RequestFacts } from './calls/transport-contract';
import type { ResolvedRequest } from './calls/resolved-request';

function methodNotFound(method: string): McpError {
  return new McpError(McpErrorCode.MethodNotFound, `Method not found: ${method}`);
}

export class RequestResolver {
  private readonly revisionsByEra: Readonly<Record<McpEra, readonly McpRevision[]>>;

  constructor(
    /** The revisions advertised and accepted, newest first. */
    revisions: readonly McpRevision[],
    /** The log level of a legacy session that never sent `logging/setLevel`. */
    private readonly defaultLogLevel: LoggingLevel,
    private readonly rounds: RoundTrips,
    /** What the server has of the gated methods (`MethodGate`). */
    private readonly gates: ReadonlySet<MethodGate> = new Set(),
  ) {
    this.revisionsByEra = {
      legacy: revisions.filter((revision) => eraOf(revision) === 'legacy'),
      modern: revisions.filter((revision) => eraOf(revision) === 'modern'),
    };
  }

  /** The advertised revisions of one era, newest first. */
  revisionsOf(era: McpEra): readonly McpRevision[] {
    return this.revisionsByEra[era];
  }

  /** The request ready for its handler, or the error of the first rung it fails. */
  resolve(facts: RequestFacts, message: JSONRPCRequest): ResolvedRequest | McpError {
    const params = message.params ?? {};
    return facts.era === 'modern'
      ? this.resolveModern(facts, message, params)
      : this.resolveLegacy(facts, message, params);
  }

  private resolveModern(facts: RequestFacts, message: JSONRPCRequest, params: JSONObject): ResolvedRequest | McpError {
    const envelope = readModernEnvelope(params);
    if (typeof envelope === 'string') {
      return new McpError(McpErrorCode.InvalidParams, envelope);
    }
    if (facts.headers !== undefined) {
      const headerVersion = headerValue(facts.headers, 'mcp-protocol-version');
      if (headerVersion === undefined) {
        return new McpError(McpErrorCode.HeaderMismatch, 'Header mismatch: MCP-Protocol-Version header is required');
      }
      if (headerVersion !== envelope.protocolVersion) {
        return new McpError(
          McpErrorCode.HeaderMismatch,
          `Header mismatch: MCP-Protocol-Version header value '${headerVersion}' does not match _meta value '${envelope.protocolVersion}'`,
        );
      }
      const mismatch = checkStandardHeaders(facts.headers, message.method, params);
      if (mismatch !== undefined) {
        return new McpError(McpErrorCode.HeaderMismatch, mismatch);
      }
    }
    const modern = this.revisionsOf('modern');
    if (!isRevision(envelope.protocolVersion) || !modern.includes(envelope.protocolVersion)) {
      return new McpError(
        McpErrorCode.UnsupportedProtocolVersion,
        `Unsupported protocol version: ${envelope.protocolVersion}`,
        { supported: modern, requested: envelope.protocolVersion },
      );
    }
    if (!servesMethod('modern', message.method, facts.transport, undefined, this.gates)) {
      return methodNotFound(message.method);
    }
    const principal = facts.principal ?? ANONYMOUS_PRINCIPAL;
    let inputs: RoundInputs | undefined;
    if (
      (params.inputResponses !== undefined || params.requestState !== undefined) &&
      this.rounds.isMultiRound(message.method)
    ) {
      const opened = this.rounds.open(message.method, params, principal);
      if (opened instanceof McpError) {
        return opened;
      }
      inputs = opened;
    }
    return {
      id: message.id,
      method: message.method,
      params,
      facts,
      era: 'modern',
      revision: envelope.protocolVersion,
      principal,
      clientCapabilities: envelope.clientCapabilities,
      clientInfo: envelope.clientInfo,
      logLevel: envelope.logLevel,
      scope: new CallScope(),
      inputs,
    };
  }

  private resolveLegacy(facts: RequestFacts, message: JSONRPCRequest, params: JSONObject): ResolvedRequest | McpError {
    const state = facts.session?.state;
    const revision = facts.revision ?? state?.protocolVersion;
    if (!servesMethod('legacy', message.method, facts.transport, revision, this.gates)) {
      return methodNotFound(message.method);
    }
    return {
      id: message.id,
      method: message.method,
      params,
      facts,
      era: 'legacy',
      revision,
      principal: facts.principal ?? ANONYMOUS_PRINCIPAL,
      clientCapabilities: state?.clientCapabilities ?? {},
      clientInfo: state?.clientInfo,
      logLevel: state?.logLevel ?? this.defaultLogLevel,
      scope: new CallScope(),
    };
  }
}
