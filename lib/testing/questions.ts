/**
 * Answering the server's questions (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) with the test's `answers`, fixed values or functions, in either era; each question
 * is recorded, with the answer given, for the test's assertions.
 */
import type { ClientCapabilities } from 'nest-mcp';
import type { McpTestAnswers, McpTestClientOptions, McpTestQuestion } from './mcp-test.types';

/** The capabilities a client declares: the test's own, else one per answer it was given. */
export function capabilitiesOf(options: McpTestClientOptions): ClientCapabilities {
  if (options.clientCapabilities !== undefined) {
    return options.clientCapabilities;
  }
  const answers: McpTestAnswers = options.answers ?? {};
  const capabilities: ClientCapabilities = {};
  if (answers.elicit !== undefined) capabilities.elicitation = {};
  if (answers.sample !== undefined) capabilities.sampling = {};
  if (answers.roots !== undefined) capabilities.roots = {};
  return capabilities;
}

/** The questions of one client: answered from its `answers`, recorded in `asked`. */
export class QuestionDesk {
  /** Every question the server asked, in order, with the answer given. */
  readonly asked: McpTestQuestion[] = [];

  constructor(private readonly answers: McpTestAnswers = {}) {}

  /** The test's answer to one question; records it. Throws when the test gave none. */
  async answer(method: string, params: Record<string, any>, via: McpTestQuestion['via']): Promise<unknown> {
    const given =
      method === 'elicitation/create'
        ? this.answers.elicit
        : method === 'sampling/createMessage'
          ? this.answers.sample
          : method === 'roots/list'
            ? this.answers.roots
            : undefined;
    if (given === undefined) {
      this.asked.push({ method, params, via });
      throw new Error(`The server asked ${method} and the test client has no answer for it (answers option)`);
    }
    const question = { method, params, via };
    const answer =
      typeof given === 'function'
        ? await (given as (p: unknown, q: McpTestQuestion) => unknown)(params, question)
        : given;
    this.asked.push({ ...question, answer });
    return answer;
  }
}
