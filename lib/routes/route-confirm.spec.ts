import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpCallContext } from '../protocol/calls/call-context.interface';
import type { ElicitRequestParams, ElicitResult } from '../protocol/messages/client-requests';
import type { ClientCapabilities } from '../protocol/messages/mcp-types';
import { confirmRoute, confirmationQuestion, confirmed, routeConfirmation } from './route-confirm';

const CALL = { tool: 'notes_remove', request: 'DELETE /api/notes/7', args: { id: 7 } };

/** A call context that answers `elicit` with `answer` and records the questions. */
function context(
  answer: ElicitResult,
  capabilities: ClientCapabilities = { elicitation: {} },
  revision = '2025-11-25',
): McpCallContext & { asked: ElicitRequestParams[] } {
  const asked: ElicitRequestParams[] = [];
  return {
    asked,
    revision,
    clientCapabilities: capabilities,
    elicit: (params: ElicitRequestParams) => {
      asked.push(params);
      return Promise.resolve(answer);
    },
  } as unknown as McpCallContext & { asked: ElicitRequestParams[] };
}

describe('routeConfirmation', () => {
  it('asks where the route says so, with its own words, and not where it says false', () => {
    expect(routeConfirmation(true, {}, false, 'X.y')).toBe(true);
    expect(routeConfirmation('Sure?', {}, false, 'X.y')).toBe('Sure?');
    expect(routeConfirmation(false, { destructiveHint: true }, true, 'X.y')).toBeUndefined();
    expect(routeConfirmation(undefined, { destructiveHint: true }, false, 'X.y')).toBeUndefined();
  });

  it('asks for every destructive route under confirmDestructive, by the final annotations', () => {
    expect(routeConfirmation(undefined, { destructiveHint: true }, true, 'X.y')).toBe(true);
    expect(routeConfirmation(undefined, { destructiveHint: false }, true, 'X.y')).toBeUndefined();
    expect(routeConfirmation(undefined, {}, true, 'X.y')).toBeUndefined();
  });

  it.each([[''], [' '], [1], [{}]])('refuses confirm: %j at startup, naming the route', (confirm) => {
    expect(() => routeConfirmation(confirm, {}, false, 'NotesController.remove')).toThrow(McpConfigurationError);
    expect(() => routeConfirmation(confirm, {}, false, 'NotesController.remove')).toThrow(/NotesController\.remove/);
  });
});

describe('confirmationQuestion', () => {
  it('names the request, the tool and the arguments in a yes/no form', () => {
    expect(confirmationQuestion(true, CALL)).toEqual({
      message: 'Allow notes_remove to run?\nDELETE /api/notes/7 (tool notes_remove)\nArguments: {"id":7}',
      requestedSchema: {
        type: 'object',
        properties: {
          confirm: {
            type: 'boolean',
            title: 'Run DELETE /api/notes/7',
            description: 'Yes runs the route; no (or declining) does not.',
            default: false,
          },
        },
        required: ['confirm'],
      },
    });
    expect(confirmationQuestion('Delete it?', CALL).message).toMatch(/^Delete it\?\nDELETE \/api\/notes\/7/);
  });

  it('bounds the arguments it shows', () => {
    const message = confirmationQuestion(true, { ...CALL, args: { text: 'x'.repeat(5000) } }).message;
    expect(message.length).toBeLessThan(1200);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('confirmed', () => {
  it('is an accepted yes only', () => {
    expect(confirmed({ action: 'accept', content: { confirm: true } })).toBe(true);
    expect(confirmed({ action: 'accept', content: { confirm: false } })).toBe(false);
    expect(confirmed({ action: 'accept', content: { confirm: 'true' } })).toBe(false);
    expect(confirmed({ action: 'accept' })).toBe(false);
    expect(confirmed({ action: 'decline' })).toBe(false);
    expect(confirmed({ action: 'cancel', content: { confirm: true } })).toBe(false);
  });
});

describe('confirmRoute', () => {
  it('lets the route run after a yes', async () => {
    const ctx = context({ action: 'accept', content: { confirm: true } });
    await expect(confirmRoute(ctx, true, CALL)).resolves.toBeUndefined();
    expect(ctx.asked).toHaveLength(1);
  });

  const refusals: Array<[ElicitResult, string]> = [
    [{ action: 'decline' }, 'declined'],
    [{ action: 'cancel' }, 'cancelled'],
    [{ action: 'accept', content: { confirm: false } }, 'answered no'],
  ];

  it.each(refusals)('refuses after %j', async (answer, how) => {
    await expect(confirmRoute(context(answer), true, CALL)).resolves.toEqual({
      isError: true,
      content: [{ type: 'text', text: `Not run: the person ${how} when asked to confirm DELETE /api/notes/7.` }],
    });
  });

  it('refuses without asking a client that has no elicitation, or a revision without it', async () => {
    const yes: ElicitResult = { action: 'accept', content: { confirm: true } };
    const mute = context(yes, {});
    expect(await confirmRoute(mute, true, CALL)).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('the client did not declare elicitation') }],
    });
    const urlOnly = context(yes, { elicitation: { url: {} } });
    expect(await confirmRoute(urlOnly, true, CALL)).toMatchObject({ isError: true });
    const old = context(yes, { elicitation: {} }, '2025-03-26');
    expect(await confirmRoute(old, true, CALL)).toMatchObject({
      content: [{ text: expect.stringContaining('revision 2025-03-26 has no elicitation') }],
    });
    expect([...mute.asked, ...urlOnly.asked, ...old.asked]).toEqual([]);
  });
});
