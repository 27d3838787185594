/**
 * Legacy era: the server's requests to the client (elicitation, sampling, roots). Each is sent
 * on a stream of the call and waits, in the table of its session, for the answer the client
 * POSTs; the answer is checked before the handler sees it.
 */
import { McpErrorCode, failure, notification, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { invalidAnswer, paramsFor, type InputRequest } from '../messages/client-requests';
import { ClientRequestAbandoned, type ClientRequestTable } from './client-request-table';
import type { RequestChannel } from './transport-contract';
import type { ResolvedRequest } from './resolved-request';
import type { QuestionLimit } from '../bounds/question-limit';

export class ClientRequester {
  constructor(
    /** The requests sent to clients, waiting for their answers. */
    readonly table: ClientRequestTable,
    /** How long a request waits for its answer when the caller gives no limit; 0 = no limit. */
    private readonly defaultTimeoutMs: number,
    /** How many requests may wait in one session (`maxPendingQuestions`). */
    private readonly limit: QuestionLimit,
  ) {}

  /**
   * Sends `question` to the client of `request` on `channel` (the call's stream by default) and
   * waits for the answer.
   */
  async ask<T>(
    request: ResolvedRequest,
    question: InputRequest,
    timeoutMs: number | undefined,
    channel: RequestChannel = request.facts.channel,
  ): Promise<T> {
    const scope = request.facts.cancelScope;
    if (scope === undefined || channel.request === undefined) {
      throw new McpError(McpErrorCode.InternalError, `${question.method} needs a session and a stream to the client`);
    }
    if (!this.limit.admits(this.table.pendingIn(scope))) {
      throw this.limit.refusal('session', scope, question.method);
    }
    const id = this.table.newId();
    const answer = this.table.wait(
      scope,
      id,
      question.method,
      timeoutMs ?? this.defaultTimeoutMs,
      request.scope.signal,
    );
    const sent = await channel.request({
      jsonrpc: '2.0',
      id,
      method: question.method,
      params: paramsFor(question, request.revision),
    });
    if (!sent) {
      this.table.deliver(scope, failure(id, McpErrorCode.InternalError, 'The stream to the client is closed'));
    }
    let result: JSONObject;
    try {
      result = await answer;
    } catch (error) {
      if (error instanceof ClientRequestAbandoned) {
        // The client may still be showing the question to its user: tell it to stop.
        channel.notify(notification('notifications/cancelled', { requestId: id, reason: error.message }));
      }
      throw error;
    }
    const invalid = invalidAnswer(question.method, result);
    if (invalid !== undefined) {
      throw new McpError(
        McpErrorCode.InternalError,
        `The client's answer to ${question.method} is invalid: ${invalid}`,
      );
    }
    return result as T;
  }
}
