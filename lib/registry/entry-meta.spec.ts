import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpToolDefinition } from '../interfaces/mcp-definitions.interface';
import { EntryMetaHooks } from './entry-meta';

const AUDIT = 'com.example/notes-audit';
const tool = (meta?: Record<string, unknown>): McpToolDefinition => ({
  name: 'list_notes',
  handler: () => 'none',
  ...(meta === undefined ? {} : { _meta: meta }),
});

describe('EntryMetaHooks', () => {
  it("adds each extension's keys; the entry's own keys win; the definition is untouched", () => {
    const hooks = new EntryMetaHooks();
    hooks.add(AUDIT, (entry) => ({ [AUDIT]: { kind: entry.kind }, [`${AUDIT}/by`]: 'hook' }), 'NotesAudit');
    hooks.add('com.example/other', () => undefined, 'Other');
    const definition = tool({ [`${AUDIT}/by`]: 'entry', 'com.example/own': 1 });
    const applied = hooks.apply({ kind: 'tool', definition });
    expect(applied._meta).toEqual({ [AUDIT]: { kind: 'tool' }, [`${AUDIT}/by`]: 'entry', 'com.example/own': 1 });
    expect(definition._meta).toEqual({ [`${AUDIT}/by`]: 'entry', 'com.example/own': 1 });
  });

  it('gives back the same definition when no hook adds anything', () => {
    const hooks = new EntryMetaHooks();
    hooks.add(AUDIT, () => undefined, 'NotesAudit');
    const definition = tool();
    expect(hooks.apply({ kind: 'tool', definition })).toBe(definition);
  });

  it.each([
    ['a key of another extension', { 'com.example/other': 1 }, 'returned the _meta key "com.example/other"'],
    ['a key that only starts like its id', { [`${AUDIT}-x`]: 1 }, `"${AUDIT}" or "${AUDIT}/..." only`],
    ['a value that is not an object', ['x'], 'must return an object or undefined'],
  ])('refuses %s', (_label, meta, message) => {
    const hooks = new EntryMetaHooks();
    hooks.add(AUDIT, () => meta as never, 'NotesAudit');
    expect(() => hooks.apply({ kind: 'tool', definition: tool() })).toThrow(McpConfigurationError);
    expect(() => hooks.apply({ kind: 'tool', definition: tool() })).toThrow(message);
  });
});
