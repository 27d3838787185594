/**
 * The confirmation of a route tool (`@McpRoute({ confirm })`, `routes.confirmDestructive`):
 * before the route runs, the person is asked through the client (elicitation, a yes/no form
 * naming the route and its arguments). Only an accepted "yes" lets it run; a refusal, or a
 * client that cannot ask, answers an `isError` result and the route never runs.
 */
import type { McpCallContext } from '../protocol/calls/call-context.interface';
import {
  missingCapability,
  revisionKnows,
  type ElicitRequestFormParams,
  type ElicitResult,
  type InputRequest,
} from '../protocol/messages/client-requests';
import type { JSONObject } from '../protocol/messages/json-rpc';
import type { CallToolResult, ToolAnnotations } from '../protocol/messages/mcp-types';
import { McpConfigurationError } from '../errors/mcp-configuration.error';

/** The arguments shown in the question, at most this many characters of their JSON. */
const MAX_ARGUMENTS_SHOWN = 1000;
/** The form field whose `true` confirms. */
const FIELD = 'confirm';

/** What one route asks: `true` for the default question, or its own words. */
export type RouteConfirmation = true | string;

/**
 * Whether a route asks, from its `confirm` option and the module's `confirmDestructive`
 * (destructive routes, by their final annotations); `false` on the route wins over the module.
 * @throws McpConfigurationError for a `confirm` neither a boolean nor a non-empty string
 */
export function routeConfirmation(
  confirm: unknown,
  annotations: ToolAnnotations,
  confirmDestructive: boolean,
  where: string,
): RouteConfirmation | undefined {
  if (confirm === undefined) {
    return confirmDestructive && annotations.destructiveHint === true ? true : undefined;
  }
  if (typeof confirm === 'string' && confirm.trim() !== '') {
    return confirm;
  }
  if (typeof confirm !== 'boolean') {
    throw new McpConfigurationError(`${where}: @McpRoute's confirm must be a boolean or a non-empty string`);
  }
  return confirm ? true : undefined;
}

/** What the question names: the tool, the request it would send, its arguments. */
export interface ConfirmedCall {
  readonly tool: string;
  /** `DELETE /api/notes/7`. */
  readonly request: string;
  readonly args: unknown;
}

function shown(args: unknown): string {
  const json = JSON.stringify(args ?? {}) ?? '{}';
  return json.length > MAX_ARGUMENTS_SHOWN ? `${json.slice(0, MAX_ARGUMENTS_SHOWN)}…` : json;
}

/** The yes/no form: the route's own question (or the default one), the request and the arguments. */
export function confirmationQuestion(confirmation: RouteConfirmation, call: ConfirmedCall): ElicitRequestFormParams {
  const question = confirmation === true ? `Allow ${call.tool} to run?` : confirmation;
  return {
    message: `${question}\n${call.request} (tool ${call.tool})\nArguments: ${shown(call.args)}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [FIELD]: {
          type: 'boolean',
          title: `Run ${call.request}`,
          description: 'Yes runs the route; no (or declining) does not.',
          default: false,
        },
      },
      required: [FIELD],
    },
  };
}

/** Whether an answer lets the route run: accepted, with the box ticked. */
export function confirmed(answer: ElicitResult): boolean {
  return answer.action === 'accept' && answer.content?.[FIELD] === true;
}

/** Why a client cannot be asked (its revision or its capabilities), or `undefined` when it can. */
export function cannotAsk(call: McpCallContext, question: ElicitRequestFormParams): string | undefined {
  const request: InputRequest = { method: 'elicitation/create', params: question as unknown as JSONObject };
  if (!revisionKnows(request, call.revision)) {
    return `revision ${call.revision} has no elicitation`;
  }
  return missingCapability(request, call.clientCapabilities) === undefined
    ? undefined
    : 'the client did not declare elicitation';
}

function refused(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * Asks the person, through the call's client, whether the route may run.
 * @returns `undefined` when it may; else the `isError` result to answer with (the route must not run)
 */
export async function confirmRoute(
  context: McpCallContext,
  confirmation: RouteConfirmation,
  call: ConfirmedCall,
): Promise<CallToolResult | undefined> {
  const question = confirmationQuestion(confirmation, call);
  const reason = cannotAsk(context, question);
  if (reason !== undefined) {
    return refused(
      `Not run: ${call.request} needs the person's confirmation, and this client cannot ask for it (${reason}).`,
    );
  }
  const answer = await context.elicit(question);
  if (confirmed(answer)) {
    return undefined;
  }
  const how = answer.action === 'accept' ? 'answered no' : answer.action === 'decline' ? 'declined' : 'cancelled';
  return refused(`Not run: the person ${how} when asked to confirm ${call.request}.`);
}
