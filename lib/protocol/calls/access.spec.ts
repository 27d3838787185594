import { McpErrorCode, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { missingScopes, requireScopes, visibleEntries, type EntryAccess } from './access';
import type { McpCallContext, McpPrincipal } from './call-context';

const READER: McpPrincipal = { id: 'reader', scopes: ['notes:read'] };
const WRITER: McpPrincipal = { id: 'writer', scopes: ['notes:read', 'notes:write'] };
const NOBODY: McpPrincipal = { id: 'nobody', scopes: [] };

/** A call context carrying only what the access checks read: the principal. */
const contextOf = (principal: McpPrincipal): McpCallContext => ({ principal }) as unknown as McpCallContext;

/** The error `run` throws, failing the test when it throws none. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('Expected an error');
}

/** Entries named by their rendering, with the given access rules. */
function entriesOf(rules: Array<[name: string, access: EntryAccess | undefined]>): {
  entries: Array<{ access?: EntryAccess }>;
  rendered: JSONObject[];
} {
  return {
    entries: rules.map(([, access]) => (access === undefined ? {} : { access })),
    rendered: rules.map(([name]) => ({ name })),
  };
}

const namesOf = (list: JSONObject[] | undefined): unknown[] | undefined => list?.map((entry) => entry.name);

describe('missingScopes', () => {
  it('lists the required scopes the principal lacks, in the order required', () => {
    expect(missingScopes(NOBODY, ['b', 'a'])).toEqual(['b', 'a']);
    expect(missingScopes(READER, ['notes:write', 'notes:read', 'admin'])).toEqual(['notes:write', 'admin']);
  });

  it('is empty when the principal holds every scope, or nothing is required', () => {
    expect(missingScopes(WRITER, ['notes:write', 'notes:read'])).toEqual([]);
    expect(missingScopes(NOBODY, [])).toEqual([]);
  });

  it('compares scopes exactly (no prefix or case folding)', () => {
    expect(missingScopes({ id: 'p', scopes: ['notes'] }, ['notes:read'])).toEqual(['notes:read']);
    expect(missingScopes({ id: 'p', scopes: ['NOTES:READ'] }, ['notes:read'])).toEqual(['notes:read']);
  });
});

describe('requireScopes', () => {
  it('lets a call through when the entry has no rules or requires no scope', () => {
    expect(() => requireScopes(undefined, NOBODY, 'tool open')).not.toThrow();
    expect(() => requireScopes({ scopes: [] }, NOBODY, 'tool open')).not.toThrow();
  });

  it('lets a principal holding every scope through', () => {
    expect(() => requireScopes({ scopes: ['notes:read', 'notes:write'] }, WRITER, 'tool edit')).not.toThrow();
  });

  it('refuses a principal missing one scope: -32003, the message, and every required scope in data', () => {
    const error = thrownBy(() => requireScopes({ scopes: ['notes:read', 'notes:write'] }, READER, 'tool edit'));
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).toJsonRpc()).toEqual({
      code: McpErrorCode.InsufficientScope,
      message: 'Insufficient scope for tool edit',
      data: { requiredScopes: ['notes:read', 'notes:write'] },
    });
    expect(McpErrorCode.InsufficientScope).toBe(-32003);
  });

  it('hands data a copy: changing it does not change the entry', () => {
    const scopes = ['notes:write'];
    const error = thrownBy(() => requireScopes({ scopes }, NOBODY, 'resource notes://x')) as McpError;
    expect(error.message).toBe('Insufficient scope for resource notes://x');
    (error.data as { requiredScopes: string[] }).requiredScopes.push('injected');
    expect(scopes).toEqual(['notes:write']);
  });

  it('checks scopes only: a visibility rule does not refuse a call', () => {
    const visible = jest.fn(() => false);
    expect(() => requireScopes({ scopes: [], visible }, NOBODY, 'tool hidden')).not.toThrow();
    expect(visible).not.toHaveBeenCalled();
  });
});

describe('visibleEntries', () => {
  it('returns undefined, without building a context, when no entry has rules', async () => {
    const { entries, rendered } = entriesOf([
      ['a', undefined],
      ['b', undefined],
    ]);
    const call = jest.fn(() => contextOf(NOBODY));
    const onFailure = jest.fn();
    await expect(visibleEntries(entries, rendered, call, onFailure, undefined)).resolves.toBeUndefined();
    expect(call).not.toHaveBeenCalled();
    expect(onFailure).not.toHaveBeenCalled();
  });

  it('returns undefined for an empty list', async () => {
    await expect(visibleEntries([], [], () => contextOf(NOBODY), jest.fn(), undefined)).resolves.toBeUndefined();
  });

  it('keeps entries without rules and those whose scopes the principal holds, in their order', async () => {
    const { entries, rendered } = entriesOf([
      ['open-1', undefined],
      ['write', { scopes: ['notes:write'] }],
      ['read', { scopes: ['notes:read'] }],
      ['open-2', undefined],
      ['both', { scopes: ['notes:read', 'notes:write'] }],
    ]);
    const reader = await visibleEntries(entries, rendered, () => contextOf(READER), jest.fn(), undefined);
    expect(namesOf(reader)).toEqual(['open-1', 'read', 'open-2']);
    const writer = await visibleEntries(entries, rendered, () => contextOf(WRITER), jest.fn(), undefined);
    expect(namesOf(writer)).toEqual(['open-1', 'write', 'read', 'open-2', 'both']);
  });

  it('returns the rendered objects themselves', async () => {
    const { entries, rendered } = entriesOf([
      ['a', { scopes: ['notes:read'] }],
      ['b', undefined],
    ]);
    const visible = await visibleEntries(entries, rendered, () => contextOf(READER), jest.fn(), undefined);
    expect(visible).toHaveLength(2);
    expect(visible![0]).toBe(rendered[0]);
    expect(visible![1]).toBe(rendered[1]);
  });

  it('builds the call context once, however many entries have rules', async () => {
    const { entries, rendered } = entriesOf([
      ['a', { scopes: ['notes:read'] }],
      ['b', { scopes: [], visible: () => true }],
      ['c', { scopes: ['notes:write'] }],
    ]);
    const call = jest.fn(() => contextOf(READER));
    await visibleEntries(entries, rendered, call, jest.fn(), undefined);
    expect(call).toHaveBeenCalledTimes(1);
  });

  it('asks `visible` with the list context; only `true` shows the entry (sync or async)', async () => {
    const context = contextOf(READER);
    const seen: McpCallContext[] = [];
    const { entries, rendered } = entriesOf([
      ['sync-true', { scopes: [], visible: (call) => (seen.push(call), true) }],
      ['sync-false', { scopes: [], visible: () => false }],
      ['async-true', { scopes: ['notes:read'], visible: async () => true }],
      ['async-false', { scopes: [], visible: async () => false }],
      ['truthy', { scopes: [], visible: (() => 'yes') as unknown as () => boolean }],
    ]);
    const visible = await visibleEntries(entries, rendered, () => context, jest.fn(), undefined);
    expect(namesOf(visible)).toEqual(['sync-true', 'async-true']);
    expect(seen).toEqual([context]);
  });

  it("hands `visible` the list request's transport objects", async () => {
    const native = { request: { url: '/mcp' }, response: {} };
    const visible = jest.fn(() => true);
    const { entries, rendered } = entriesOf([['a', { scopes: [], visible }]]);
    const context = contextOf(READER);
    await visibleEntries(entries, rendered, () => context, jest.fn(), native);
    expect(visible).toHaveBeenCalledWith(context, native);
  });

  it('hides an entry whose `visible` throws or rejects, reports the failure, and keeps the others', async () => {
    const thrown = new Error('visibility check failed');
    const rejected = new Error('async visibility check failed');
    const { entries, rendered } = entriesOf([
      ['before', { scopes: [], visible: () => true }],
      [
        'throws',
        {
          scopes: [],
          visible: () => {
            throw thrown;
          },
        },
      ],
      ['rejects', { scopes: [], visible: () => Promise.reject(rejected) }],
      ['after', undefined],
    ]);
    const onFailure = jest.fn();
    const visible = await visibleEntries(entries, rendered, () => contextOf(WRITER), onFailure, undefined);
    expect(namesOf(visible)).toEqual(['before', 'after']);
    expect(onFailure).toHaveBeenCalledTimes(2);
    expect(onFailure).toHaveBeenCalledWith(thrown);
    expect(onFailure).toHaveBeenCalledWith(rejected);
  });

  it('checks scopes before `visible`: without the scopes `visible` is never called', async () => {
    const visible = jest.fn(() => true);
    const { entries, rendered } = entriesOf([['guarded', { scopes: ['admin'], visible }]]);
    const onFailure = jest.fn();
    const hidden = await visibleEntries(entries, rendered, () => contextOf(READER), onFailure, undefined);
    expect(hidden).toEqual([]);
    expect(visible).not.toHaveBeenCalled();
    expect(onFailure).not.toHaveBeenCalled();
    const shown = await visibleEntries(
      entries,
      rendered,
      () => contextOf({ id: 'root', scopes: ['admin'] }),
      onFailure,
      undefined,
    );
    expect(namesOf(shown)).toEqual(['guarded']);
    expect(visible).toHaveBeenCalledTimes(1);
  });

  it('returns an empty list (not undefined) when rules hide everything', async () => {
    const { entries, rendered } = entriesOf([
      ['a', { scopes: ['x'] }],
      ['b', { scopes: [], visible: () => false }],
    ]);
    await expect(visibleEntries(entries, rendered, () => contextOf(NOBODY), jest.fn(), undefined)).resolves.toEqual([]);
  });
});
