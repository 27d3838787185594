import { routeAnnotations, routePath, routeToolName } from './route-shape';

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
    expect(routePath({ globalPrefix: 'api', modulePath: '/admin', controllerPath: 'users/:userId/notes' })).toBe(
      '/api/admin/users/:userId/notes',
    );
  });
});
