import { capabilityError, missingCapability, paramsFor, revisionKnows, type InputRequest } from './client-requests';

const FORM: InputRequest = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'm', requestedSchema: {} },
};
const URL_MODE: InputRequest = {
  method: 'elicitation/create',
  params: { mode: 'url', message: 'm', url: 'https://x' },
};
const SAMPLE: InputRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const SAMPLE_TOOLS: InputRequest = {
  method: 'sampling/createMessage',
  params: { messages: [], maxTokens: 1, tools: [] },
};
const ROOTS: InputRequest = { method: 'roots/list', params: {} };

describe('missingCapability', () => {
  it.each([
    ['roots without roots', ROOTS, {}, { roots: {} }],
    ['roots with roots', ROOTS, { roots: {} }, undefined],
    ['sampling without sampling', SAMPLE, { elicitation: {} }, { sampling: {} }],
    ['sampling with sampling', SAMPLE, { sampling: {} }, undefined],
    ['sampling tools without sampling.tools', SAMPLE_TOOLS, { sampling: {} }, { sampling: { tools: {} } }],
    ['sampling tools without sampling', SAMPLE_TOOLS, {}, { sampling: { tools: {} } }],
    ['sampling tools with sampling.tools', SAMPLE_TOOLS, { sampling: { tools: {} } }, undefined],
    ['a form without elicitation', FORM, { sampling: {} }, { elicitation: {} }],
    ['a form with an empty elicitation', FORM, { elicitation: {} }, undefined],
    ['a form with elicitation.form', FORM, { elicitation: { form: {} } }, undefined],
    ['a form with URL mode only', FORM, { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ['a URL with form only', URL_MODE, { elicitation: {} }, { elicitation: { url: {} } }],
    ['a URL without elicitation', URL_MODE, {}, { elicitation: { url: {} } }],
    ['a URL with elicitation.url', URL_MODE, { elicitation: { url: {} } }, undefined],
  ])('%s', (_label, request, capabilities, expected) => {
    expect(missingCapability(request, capabilities)).toEqual(expected);
  });
});

describe('revisionKnows and paramsFor', () => {
  it('knows elicitation from 2025-06-18, URL mode and sampling tools from 2025-11-25', () => {
    expect(revisionKnows(FORM, '2025-03-26')).toBe(false);
    expect(revisionKnows(FORM, '2025-06-18')).toBe(true);
    expect(revisionKnows(URL_MODE, '2025-06-18')).toBe(false);
    expect(revisionKnows(URL_MODE, '2025-11-25')).toBe(true);
    expect(revisionKnows(SAMPLE_TOOLS, '2025-06-18')).toBe(false);
    expect(revisionKnows(SAMPLE, '2024-11-05')).toBe(true);
    expect(revisionKnows(ROOTS, '2024-11-05')).toBe(true);
  });

  it('drops the form mode for revisions that predate it', () => {
    expect(paramsFor(FORM, '2025-06-18')).toEqual({ message: 'm', requestedSchema: {} });
    expect(paramsFor(FORM, '2025-11-25')).toBe(FORM.params);
    expect(paramsFor(FORM, '2026-07-28')).toBe(FORM.params);
  });
});

describe('capabilityError', () => {
  it('is -32021 with the required capabilities', () => {
    expect(capabilityError(ROOTS, { roots: {} }).toJsonRpc()).toEqual({
      code: -32021,
      message: expect.stringContaining('roots/list'),
      data: { requiredCapabilities: { roots: {} } },
    });
  });
});
