import { originProblem, toolUiProblem, uiResourceMetaProblem, uiUriProblem } from './ui-checks';

describe('originProblem', () => {
  it.each([
    'https://api.example.com',
    'http://localhost:3000',
    'wss://realtime.example.com',
    'ws://127.0.0.1:8080',
    'https://*.example.com',
    'https://[::1]:8443',
  ])('takes %s', (origin) => {
    expect(originProblem(origin)).toBeUndefined();
  });

  it.each([
    ['a path', 'https://api.example.com/v1'],
    ['a trailing slash', 'https://api.example.com/'],
    ['no scheme', 'api.example.com'],
    ['another scheme', 'ftp://files.example.com'],
    ['a data URL', 'data:text/html,hi'],
    ['a keyword', "'self'"],
    ['a bare wildcard', '*'],
    ['a wildcard scheme', '*://example.com'],
    ['a wildcard inside the host', 'https://cdn.*.example.com'],
    ['a wildcard that is not a label', 'https://*example.com'],
    ['a wildcard port', 'https://example.com:*'],
    ['credentials', 'https://user:pw@example.com'],
    ['a query', 'https://example.com?x=1'],
    ['upper case', 'https://API.example.com'],
    ['the default port written out', 'https://example.com:443'],
    ['an empty string', ''],
    ['a non-string', 42],
  ])('refuses %s', (_label, origin) => {
    expect(originProblem(origin)).toMatch(/must be an origin/);
  });
});

describe('uiUriProblem', () => {
  it('takes a ui:// URI', () => {
    expect(uiUriProblem('ui://notes/note-card')).toBeUndefined();
  });

  it.each([['https://example.com'], ['ui://'], ['ui://a b'], ['UI://x'], [undefined]])('refuses %s', (uri) => {
    expect(uiUriProblem(uri)).toMatch(/must be a ui:\/\/ URI/);
  });
});

describe('uiResourceMetaProblem', () => {
  it('takes every setting the text defines', () => {
    expect(
      uiResourceMetaProblem({
        csp: {
          connectDomains: ['https://api.example.com'],
          resourceDomains: ['https://*.cdn.example.com'],
          frameDomains: [],
          baseUriDomains: ['https://cdn.example.com'],
        },
        permissions: { camera: {}, microphone: true, geolocation: undefined, clipboardWrite: {} },
        domain: 'a904794854a047f6.claudemcpcontent.com',
        prefersBorder: false,
      }),
    ).toBeUndefined();
  });

  it.each([
    ['a csp that is not an object', { csp: ['https://a.com'] }, '.csp'],
    ['an unknown csp list', { csp: { imgDomains: [] } }, '.csp.imgDomains'],
    ['a csp list that is not an array', { csp: { connectDomains: 'https://a.com' } }, '.csp.connectDomains'],
    ['a bad origin, by index', { csp: { frameDomains: ['https://a.com', 'https://b.com/x'] } }, '.csp.frameDomains[1]'],
    ['an unknown permission', { permissions: { usb: {} } }, '.permissions.usb'],
    ['a permission with settings', { permissions: { camera: { facing: 'user' } } }, '.permissions.camera'],
    ['a permission set to false', { permissions: { camera: false } }, '.permissions.camera'],
    ['an empty domain', { domain: '' }, '.domain'],
    ['a domain with a space', { domain: 'a b' }, '.domain'],
    ['a prefersBorder that is not a boolean', { prefersBorder: 'yes' }, '.prefersBorder'],
  ])('refuses %s, saying where', (_label, meta, at) => {
    expect(uiResourceMetaProblem(meta)?.at).toBe(at);
  });
});

describe('toolUiProblem', () => {
  it.each([
    [{ resourceUri: 'ui://notes/card' }],
    [{ resourceUri: 'ui://notes/card', visibility: ['app'] }],
    [{ resourceUri: 'ui://notes/card', visibility: ['model', 'app'] }],
    [{ visibility: ['app'] }],
  ])('takes %j', (ui) => {
    expect(toolUiProblem(ui)).toBeUndefined();
  });

  it.each([
    ['no object', 'ui://notes/card', ''],
    ['neither resourceUri nor visibility', {}, ''],
    ['an https resourceUri', { resourceUri: 'https://example.com/card.html' }, '.resourceUri'],
    ['an empty visibility', { resourceUri: 'ui://a', visibility: [] }, '.visibility'],
    ['an unknown audience', { resourceUri: 'ui://a', visibility: ['user'] }, '.visibility'],
    ['an audience twice', { resourceUri: 'ui://a', visibility: ['app', 'app'] }, '.visibility'],
  ])('refuses %s', (_label, ui, at) => {
    expect(toolUiProblem(ui)?.at).toBe(at);
  });
});
