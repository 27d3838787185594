import { foundTool, searchToolEntry, withSearch, type ToolSearchSettings } from './tool-search';

const SETTINGS: ToolSearchSettings = {
  name: 'search_tools',
  description: 'Finds tools',
  listed: new Set(),
  defaultLimit: 10,
  maxLimit: 25,
  maxQueryLength: 20,
};

describe('the search tool', () => {
  const entry = searchToolEntry(SETTINGS);
  const check = (value: unknown) => entry.input.validate(value);

  it('advertises its bounds in its input schema', () => {
    expect(entry.input.jsonSchema).toMatchObject({
      properties: { query: { maxLength: 20 }, limit: { minimum: 1, maximum: 25, default: 10 } },
      required: ['query'],
      additionalProperties: false,
    });
    expect(entry.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('takes a query, with the default limit when none is given', () => {
    expect(check({ query: 'notes' })).toEqual({ ok: true, value: { query: 'notes', limit: 10 } });
    expect(check({ query: 'notes', limit: 25 })).toEqual({ ok: true, value: { query: 'notes', limit: 25 } });
  });

  it.each([
    ['no object', 'notes', 'the arguments must be an object'],
    ['no query', {}, 'query must be a string of 1 to 20 characters'],
    ['an empty query', { query: '' }, 'query must be a string of 1 to 20 characters'],
    ['a query too long', { query: 'x'.repeat(21) }, 'query must be a string of 1 to 20 characters'],
    ['a limit of 0', { query: 'a', limit: 0 }, 'limit must be an integer from 1 to 25'],
    ['a limit too high', { query: 'a', limit: 26 }, 'limit must be an integer from 1 to 25'],
    ['a fractional limit', { query: 'a', limit: 1.5 }, 'limit must be an integer from 1 to 25'],
    ['another argument', { query: 'a', sort: 'name' }, 'unknown argument "sort"'],
  ])('refuses %s', (_case, value, message) => {
    expect(check(value)).toEqual({ ok: false, message });
  });

  it('runs only with its request', () => {
    expect(() => entry.invoke({}, undefined as never, undefined)).toThrow('withSearch');
    const search = jest.fn(() => ({ tools: [] }));
    expect(withSearch(entry, search).invoke({ query: 'a', limit: 1 }, undefined as never, undefined)).toEqual({
      tools: [],
    });
    expect(search).toHaveBeenCalledWith({ query: 'a', limit: 1 });
  });
});

describe('foundTool', () => {
  it('keeps the definition fields, not _meta or execution', () => {
    expect(
      foundTool({
        name: 'a',
        title: 'A',
        description: 'd',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        execution: { taskSupport: 'optional' },
        _meta: { ui: {} },
      }),
    ).toEqual({
      name: 'a',
      title: 'A',
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
    });
  });
});
