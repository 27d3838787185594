import { ListCache } from './list-cache';

describe('ListCache', () => {
  it('renders once per catalog version and revision, and again when the version changes', () => {
    const cache = new ListCache();
    let renders = 0;
    const render = (): { name: string }[] => {
      renders += 1;
      return [{ name: `tool_${renders}` }];
    };
    const first = cache.get('tools', 1, '2025-11-25', render);
    expect(cache.get('tools', 1, '2025-11-25', render)).toBe(first);
    cache.get('tools', 1, '2026-07-28', render);
    expect(renders).toBe(2);
    expect(cache.get('tools', 2, '2025-11-25', render)).toEqual([{ name: 'tool_3' }]);
  });

  it('keeps a copy of what was rendered, equal in JSON: later changes to the rendering do not leak in', () => {
    const cache = new ListCache();
    const rendered = [{ name: ['search', 'notes'].join('_'), description: 'Finds notes', extra: undefined }];
    const cached = cache.get('tools', 1, undefined, () => rendered);
    expect(JSON.stringify(cached)).toBe(JSON.stringify(rendered));
    rendered[0].description = 'changed';
    expect(cached[0].description).toBe('Finds notes');
  });

  it('keeps a variant apart from the list everyone sees: neither is served for the other', () => {
    const cache = new ListCache();
    const everyone = cache.get('tools', 1, '2026-07-28', () => [{ name: 'card' }, { name: 'refresh' }]);
    const variant = cache.get('tools', 1, '2026-07-28', () => [{ name: 'card' }], 'without app-only');
    expect(variant).toEqual([{ name: 'card' }]);
    expect(cache.get('tools', 1, '2026-07-28', () => [])).toBe(everyone);
    expect(cache.get('tools', 1, '2026-07-28', () => [], 'without app-only')).toBe(variant);
  });

  it('computes a fact once per catalog version', () => {
    const cache = new ListCache();
    let computed = 0;
    const fact = () => {
      computed += 1;
      return computed % 2 === 0;
    };
    expect(cache.memo('has views', 1, fact)).toBe(false);
    expect(cache.memo('has views', 1, fact)).toBe(false);
    expect(cache.memo('has views', 2, fact)).toBe(true);
    expect(computed).toBe(2);
  });
});
