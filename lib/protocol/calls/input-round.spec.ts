import { McpError } from '../messages/mcp-error';
import { InputRound, readRoundInputs } from './input-round';
import type { InputRequest } from '../messages/client-requests';

const ELICIT: InputRequest = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: {} } };
const SAMPLE: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };
const ROOTS: InputRequest = { method: 'roots/list', params: {} };
const ACCEPT = { action: 'accept', content: { name: 'Ada' } };

/** A round over `params`, and how many times it reported being blocked. */
function open(
  params: Record<string, unknown>,
  previous?: { answers: Record<string, unknown>; state: Record<string, unknown> },
) {
  const inputs = readRoundInputs(params, previous);
  if (inputs instanceof McpError) {
    throw inputs;
  }
  return new InputRound(inputs, () => undefined);
}

describe('InputRound', () => {
  it.each([
    ['a string', 'yes'],
    ['an array', [ACCEPT]],
    ['null', null],
  ])('refuses inputResponses that is %s', (_label, value) => {
    const inputs = readRoundInputs({ inputResponses: value }, undefined);
    expect(inputs).toBeInstanceOf(McpError);
    expect((inputs as McpError).code).toBe(-32602);
  });

  it('refuses an answer that is not an object', () => {
    const inputs = readRoundInputs({ inputResponses: { user_name: 12345 } }, undefined);
    expect((inputs as McpError).message).toContain('inputResponses.user_name');
  });

  it('answers from inputResponses and remembers what was used', async () => {
    const round = open({ inputResponses: { user_name: ACCEPT, extra: { action: 'accept' } } });
    await expect(round.ask('user_name', ELICIT)).resolves.toEqual(ACCEPT);
    expect(round.pending.size).toBe(0);
    // Unknown keys are ignored, not carried into the next state.
    expect(round.toState().answers).toEqual({ user_name: ACCEPT });
  });

  it('answers from earlier rounds, the retry winning over the state', async () => {
    const newer = { action: 'decline' };
    const round = open({ inputResponses: { b: newer } }, { answers: { a: ACCEPT, b: ACCEPT }, state: { n: 1 } });
    await expect(round.ask('a', ELICIT)).resolves.toEqual(ACCEPT);
    await expect(round.ask('b', ELICIT)).resolves.toEqual(newer);
    expect(round.state).toEqual({ n: 1 });
  });

  it('collects every question asked before the round blocks, in order, and reports the block once', async () => {
    let blocked!: () => void;
    const whenBlocked = new Promise<void>((resolve) => (blocked = resolve));
    const onBlocked = jest.fn(() => blocked());
    const round = new InputRound(undefined, onBlocked);
    const settled = jest.fn();
    void round.ask('one', ELICIT).then(settled, settled);
    void round.ask('two', SAMPLE).then(settled, settled);
    expect(onBlocked).not.toHaveBeenCalled();
    await whenBlocked;
    void round.ask('late', ROOTS).then(settled, settled);
    expect([...round.pending.keys()]).toEqual(['one', 'two', 'late']);
    expect(round.inputRequests()).toEqual({
      one: { method: 'elicitation/create', params: ELICIT.params },
      two: { method: 'sampling/createMessage', params: SAMPLE.params },
      late: { method: 'roots/list', params: {} },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).not.toHaveBeenCalled();
    expect(onBlocked).toHaveBeenCalledTimes(1);
  });

  it('derives stable keys per method when the handler names none', () => {
    const round = open({});
    expect([
      round.keyFor(ELICIT, undefined),
      round.keyFor(SAMPLE, undefined),
      round.keyFor(ELICIT, undefined),
      round.keyFor(ROOTS, 'mine'),
      round.keyFor(ROOTS, undefined),
    ]).toEqual(['elicitation-1', 'sampling-1', 'elicitation-2', 'mine', 'roots-1']);
  });

  it.each([
    ['an elicitation without action', ELICIT, { content: {} }],
    ['an elicitation with a bad action', ELICIT, { action: 'maybe' }],
    ['a sampling answer without role', SAMPLE, { content: { type: 'text', text: 'x' } }],
    ['roots that are not a list', ROOTS, { roots: 'file:///' }],
    ['a root without uri', ROOTS, { roots: [{ name: 'x' }] }],
  ])('refuses %s', async (_label, request, answer) => {
    const round = open({ inputResponses: { k: answer } });
    await expect(round.ask('k', request)).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses a key asked twice', async () => {
    const round = open({ inputResponses: { k: ACCEPT } });
    await round.ask('k', ELICIT);
    await expect(round.ask('k', ELICIT)).rejects.toThrow('asked twice');
  });
});
