/**
 * Modern era, multi round-trip requests (`tools/call`, `prompts/get`, `resources/read`): the
 * inputs a retry brings (opened from its sealed `requestState`), the round a handler lives in,
 * and the `input_required` answer that ends a round.
 */
import { McpErrorCode, type JSONObject } from './messages/json-rpc';
import { McpError } from './messages/mcp-error';
import { InputRound, readRoundInputs, type RoundInputs } from './calls/input-round';
import { RequestStateSealer, type RoundState } from './messages/request-state';
import type { MethodTable } from './methods';
import type { EngineLogger } from './calls/engine-options';
import type { McpPrincipal } from './bounds/principal';
import type { ResolvedRequest } from './calls/resolved-request';

/** How a round interrupts its request's run when the handler waits for answers the client has not given. */
const INPUT_REQUIRED = new Error('Input required');

export class RoundTrips {
  private readonly sealer: RequestStateSealer;

  /**
   * @param trace the observer's context of the round ending (`EngineObserver.roundTrace`),
   *   sealed with it so that the retry continues its trace; absent without an observer.
   */
  constructor(
    requestState: { readonly secret?: string | Buffer; readonly ttlMs: number },
    private readonly logger: EngineLogger,
    private readonly methods: MethodTable,
    private readonly trace?: () => string | undefined,
  ) {
    this.sealer = new RequestStateSealer(requestState.secret, requestState.ttlMs);
  }

  /** Whether `method` may answer `input_required`. */
  isMultiRound(method: string): boolean {
    return this.methods.entry(method)?.multiRound === true;
  }

  /**
   * The inputs of a multi round-trip request: its `inputResponses`, and the answers and state
   * of earlier rounds from its `requestState`. State that was not sealed here for this principal
   * and this request, or that expired, is refused (-32602) and the handler never runs.
   */
  open(method: string, params: JSONObject, principal: McpPrincipal): RoundInputs | McpError {
    const sealed = params.requestState;
    let previous: RoundState | undefined;
    if (sealed !== undefined) {
      previous =
        typeof sealed === 'string'
          ? this.sealer.open(sealed, { principalId: principal.id, method, params })
          : undefined;
      if (previous === undefined) {
        this.logger.warn(`${method}: refused a requestState that is invalid, expired or not this request's`);
        return new McpError(McpErrorCode.InvalidParams, 'Invalid requestState');
      }
    }
    return readRoundInputs(params, previous);
  }

  /**
   * The round of a modern multi round-trip request, made on first use; `undefined` for other
   * requests. Once the handler has asked all it can ask without answers, the round interrupts
   * the request's run: the engine answers `input_required`.
   */
  roundOf(request: ResolvedRequest): InputRound | undefined {
    if (request.round === undefined && request.era === 'modern' && this.isMultiRound(request.method)) {
      request.round = new InputRound(request.inputs, () => request.scope.interrupt(INPUT_REQUIRED));
    }
    return request.round;
  }

  /** Whether the run of `request` stopped because its round waits for answers. */
  interrupted(request: ResolvedRequest, error: unknown): boolean {
    return error === INPUT_REQUIRED && request.round !== undefined;
  }

  /** Whether the handler returned although questions of its round are unanswered (it did not await them). */
  unanswered(request: ResolvedRequest): boolean {
    return request.round !== undefined && request.round.pending.size > 0;
  }

  /**
   * Ends a round with `input_required`: every question asked so far and the sealed state of the
   * round. The handler's signal is aborted: its work is abandoned, and it runs again from the
   * start on the retry.
   */
  end(request: ResolvedRequest): JSONObject {
    const round = request.round!;
    request.scope.abandon(new McpError(McpErrorCode.InternalError, 'Input required: the request ends this round'));
    // Throws when the state outgrew what a retry may bring back: better a failed call now than a
    // round the client can never complete.
    const state = round.toState();
    const requestState = this.sealer.seal(
      { principalId: request.principal.id, method: request.method, params: request.params },
      this.trace === undefined ? state : { ...state, trace: this.trace() },
    );
    return { resultType: 'input_required', inputRequests: round.inputRequests(), requestState };
  }
}
