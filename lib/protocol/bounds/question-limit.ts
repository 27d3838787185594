/**
 * The bound on questions to the client (elicitation, sampling, roots) that wait for their
 * answers at once: each parks the call that asked it, so one session, or one task, may hold
 * only so many (`maxPendingQuestions`). A question past it is refused at once, and the call
 * that asked it ends rather than waits.
 */
import { McpErrorCode } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { RefusalLog, tooMany, type RefusalLogger } from './refusal-log';

/** Where questions are counted: a legacy session's, or a task's (either era). */
export type QuestionHolder = 'session' | 'task';

export class QuestionLimit {
  private readonly log: RefusalLog;

  constructor(
    /** How many questions may wait in one session, or one task. */
    readonly max: number,
    logger: RefusalLogger,
  ) {
    this.log = new RefusalLog(logger);
  }

  /** Whether one more question may wait where `pending` already do. */
  admits(pending: number): boolean {
    return pending < this.max;
  }

  /**
   * The error a question past the bound rejects with; an operator's warning, at most once a
   * minute (the rest as debug lines).
   */
  refusal(holder: QuestionHolder, id: string, method: string): McpError {
    const message = tooMany(`questions waiting for the client in this ${holder}`, this.max, 'maxPendingQuestions');
    this.log.warn('pending-questions', `Refused ${method} in ${holder} ${id}: ${message}`);
    return new McpError(McpErrorCode.InternalError, message);
  }
}
