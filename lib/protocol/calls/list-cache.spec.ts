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
});
