import { fillPath, pathParams, routeAnnotations, routePath, routeToolName } from './route-shape';

describe('route tool shape', () => {
  it.each([
    ['NotesController', 'findOne', 'notes_find_one'],
    ['NotesController', 'list', 'notes_list'],
    ['HTTPStatusController', 'getURLCount', 'http_status_get_url_count'],
    ['Controller', 'ping', 'ping'],
    ['UserNotes', 'remove', 'user_notes_remove'],
  ])('names %s.%s %s', (className, methodName, name) => {
    expect(routeToolName(className, methodName)).toBe(name);
  });

  it.each([
    ['GET', { readOnlyHint: true }],
    ['POST', { readOnlyHint: false }],
    ['PATCH', { readOnlyHint: false }],
    ['PUT', { readOnlyHint: false, idempotentHint: true }],
    ['DELETE', { readOnlyHint: false, idempotentHint: true, destructiveHint: true }],
  ] as const)('reads the hints of %s', (verb, hints) => {
    expect(routeAnnotations(verb, undefined)).toEqual(hints);
  });

  it('lets the route override a hint', () => {
    expect(routeAnnotations('DELETE', { destructiveHint: false, title: 'Archive' })).toEqual({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: false,
      title: 'Archive',
    });
  });

  it('builds the full path: global prefix, URI version, controller, method', () => {
    expect(
      routePath({
        globalPrefix: '/api/',
        versioning: { prefix: 'v', version: '1' },
        controllerPath: 'notes',
        methodPath: ':id',
      }),
    ).toBe('/api/v1/notes/:id');
    expect(routePath({ controllerPath: '/notes/', methodPath: '' })).toBe('/notes');
    expect(routePath({ versioning: { prefix: '' }, controllerPath: 'a/b' })).toBe('/a/b');
    expect(routePath({})).toBe('/');
  });

  it('reads and fills the path parameters, URL-encoded', () => {
    expect(pathParams('/api/v1/notes/:noteId/tags/:tag?')).toEqual(['noteId', 'tag']);
    expect(fillPath('/api/notes/:id/tags/:tag', { id: 7, tag: 'a b/../c?d' })).toBe(
      '/api/notes/7/tags/a%20b%2F..%2Fc%3Fd',
    );
    expect(fillPath('/notes/:id/:tag?', { id: 'x' })).toBe('/notes/x');
  });
});
