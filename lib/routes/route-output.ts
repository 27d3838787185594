/**
 * A route tool's successful result held to the outputSchema its route declares. The engine would
 * turn a result that breaks it into "Invalid output", and clients check `structuredContent`
 * against the schema: but by then the route has run (a note created, a row deleted), so the
 * answer must say so, or a model would try again. The result becomes an `isError` one that says
 * the route ran and what did not match, with the route's body after it as text.
 */
import type { McpValidationOutcome } from '../protocol/calls/catalog';
import type { CallToolResult } from '../protocol/messages/mcp-types';

/** Validates a body against the tool's output schema. */
export type OutputCheck = (value: unknown) => McpValidationOutcome | Promise<McpValidationOutcome>;

function broken(result: CallToolResult, status: number, why: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: `HTTP ${status}: the route ran and answered, but its response ${why}. Its body follows as it came.`,
      },
      ...result.content,
    ],
  };
}

/**
 * The result as it is when it matches the output schema, else an `isError` result saying why
 * (`onMismatch` is told, for the application's log). Errors (4xx) pass as they are.
 */
export async function conformingResult(
  result: CallToolResult,
  status: number,
  check: OutputCheck,
  onMismatch: (why: string) => void,
): Promise<CallToolResult> {
  if (result.isError === true) {
    return result;
  }
  if (result.structuredContent === undefined) {
    const why = 'is not a JSON object, which its outputSchema declares';
    onMismatch(why);
    return broken(result, status, why);
  }
  const outcome = await check(result.structuredContent);
  if (outcome.ok) {
    return result;
  }
  const why = `does not match its outputSchema (${outcome.message})`;
  onMismatch(why);
  return broken(result, status, why);
}
