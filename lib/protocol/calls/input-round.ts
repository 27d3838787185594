/**
 * One round of a multi round-trip request (2026-07-28) as its handler lives it. The handler is
 * run again from the start on every round; each question it asks (`ctx.elicit()`...) is answered
 * from the retry's `inputResponses` or from the answers earlier rounds sealed into
 * `requestState`. A question with no answer yet is collected, and the round ends with an
 * `input_required` result listing every question the handler reached.
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { DEFAULT_KEY_PREFIX, invalidAnswer, type InputRequest } from '../messages/client-requests';
import type { RoundState } from '../messages/request-state';

/** What a retry brings: the answers (of this retry and of earlier rounds) and the handler's state. */
export interface RoundInputs {
  readonly answers: JSONObject;
  readonly state: JSONObject;
}

/**
 * Reads a retry's inputs from its params; `previous` is its opened `requestState`. Malformed
 * `inputResponses` are refused (-32602) before the handler runs.
 */
export function readRoundInputs(params: JSONObject, previous: RoundState | undefined): RoundInputs | McpError {
  const responses = params.inputResponses;
  if (responses !== undefined && !isJsonObject(responses)) {
    return new McpError(McpErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
  }
  const answers: JSONObject = { ...previous?.answers };
  for (const [key, answer] of Object.entries(responses ?? {})) {
    if (!isJsonObject(answer)) {
      return new McpError(McpErrorCode.InvalidParams, `Invalid params: inputResponses.${key} must be an object`);
    }
    answers[key] = answer;
  }
  return { answers, state: previous?.state ?? {} };
}

const NO_INPUTS: RoundInputs = { answers: {}, state: {} };

/**
 * The round of one request, made when its handler first asks a question or reads `ctx.state`:
 * requests that never do cost nothing.
 */
export class InputRound {
  /** Answers the handler used this round: sealed into the next state. */
  readonly used: JSONObject = {};
  /** Questions with no answer yet, by key, in the order they were asked. */
  readonly pending = new Map<string, InputRequest>();
  /** What the handler keeps across rounds (`ctx.state`). */
  readonly state: JSONObject;
  private readonly answers: JSONObject;
  private readonly counters = new Map<string, number>();

  /**
   * @param onBlocked called once the handler has asked everything it can ask this round: the
   *   engine then answers `input_required`.
   */
  constructor(
    inputs: RoundInputs | undefined,
    private readonly onBlocked: () => void,
  ) {
    this.answers = (inputs ?? NO_INPUTS).answers;
    this.state = { ...(inputs ?? NO_INPUTS).state };
  }

  /** The key of a question: the handler's, or one derived from its method and rank. */
  keyFor(request: InputRequest, key: string | undefined): string {
    if (key !== undefined) {
      return key;
    }
    const prefix = DEFAULT_KEY_PREFIX[request.method];
    const rank = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, rank);
    return `${prefix}-${rank}`;
  }

  /** Whether the retry brought the answer to `key`. */
  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.answers, key);
  }

  /**
   * The answer to a question, or a promise that never settles while the round collects it:
   * the engine ends the round with `input_required` and aborts the handler's signal.
   */
  ask<T>(key: string, request: InputRequest): Promise<T> {
    if (this.pending.has(key) || Object.prototype.hasOwnProperty.call(this.used, key)) {
      return Promise.reject(
        new McpError(McpErrorCode.InternalError, `Input key "${key}" was asked twice in one request`),
      );
    }
    const answer = this.has(key) ? this.answers[key] : undefined;
    if (answer !== undefined) {
      const invalid = invalidAnswer(request.method, answer);
      if (invalid !== undefined) {
        return Promise.reject(
          new McpError(McpErrorCode.InvalidParams, `Invalid params: inputResponses.${key}: ${invalid}`),
        );
      }
      this.used[key] = answer;
      return Promise.resolve(answer as T);
    }
    if (this.pending.size === 0) {
      // Questions asked together (`Promise.all`) are all asked before a macrotask runs.
      setImmediate(this.onBlocked);
    }
    this.pending.set(key, request);
    // A promise of its own, never settled: once the round ends nothing references it, and the
    // handler's suspended frame is collected with it (a shared one would keep them all).
    return new Promise<T>(() => undefined);
  }

  /** The questions of the `input_required` result. */
  inputRequests(): JSONObject {
    const requests: JSONObject = {};
    for (const [key, request] of this.pending) {
      requests[key] = { method: request.method, params: request.params };
    }
    return requests;
  }

  /** What the next round needs. */
  toState(): RoundState {
    return { answers: this.used, state: this.state };
  }
}
