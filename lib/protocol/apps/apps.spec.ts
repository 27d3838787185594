import {
  isAppOnly,
  isUiResource,
  MCP_APP_MIME_TYPE,
  renderToolUi,
  renderUiResourceMeta,
  uiContents,
  withoutAppOnly,
} from './apps';

describe('renderUiResourceMeta', () => {
  it('renders the settings given, permissions as {} whichever way they were asked', () => {
    expect(
      renderUiResourceMeta({
        csp: { connectDomains: ['https://api.example.com'], frameDomains: undefined },
        permissions: { camera: true, clipboardWrite: {}, microphone: undefined },
        domain: 'views.example.com',
        prefersBorder: false,
      }),
    ).toEqual({
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { camera: {}, clipboardWrite: {} },
      domain: 'views.example.com',
      prefersBorder: false,
    });
  });

  it('is undefined when nothing is set: the view then has no _meta.ui at all', () => {
    expect(renderUiResourceMeta({})).toBeUndefined();
  });
});

describe('renderToolUi', () => {
  it('renders the view and, only when given, the visibility', () => {
    expect(renderToolUi({ resourceUri: 'ui://a' })).toEqual({ resourceUri: 'ui://a' });
    expect(renderToolUi({ resourceUri: 'ui://a', visibility: ['app'] })).toEqual({
      resourceUri: 'ui://a',
      visibility: ['app'],
    });
    expect(renderToolUi({ visibility: ['app'] })).toEqual({ visibility: ['app'] });
  });
});

describe('isAppOnly and withoutAppOnly', () => {
  const tool = (name: string, meta?: Record<string, unknown>) => ({ name, meta });
  const plain = tool('plain');
  const both = tool('both', { ui: { resourceUri: 'ui://a', visibility: ['model', 'app'] } });
  const linked = tool('linked', { ui: { resourceUri: 'ui://a' } });
  const modelOnly = tool('model', { ui: { resourceUri: 'ui://a', visibility: ['model'] } });
  const appOnly = tool('app', { ui: { resourceUri: 'ui://a', visibility: ['app'] } });

  it('is true only for a visibility without the model', () => {
    expect([plain, both, linked, modelOnly, appOnly].map((entry) => isAppOnly(entry.meta))).toEqual([
      false,
      false,
      false,
      false,
      true,
    ]);
  });

  it('drops the app-only tools, and hands back the very list when there are none', () => {
    const list = [plain, appOnly, linked];
    expect(withoutAppOnly(list)).toEqual([plain, linked]);
    const none = [plain, both, modelOnly];
    expect(withoutAppOnly(none)).toBe(none);
  });
});

describe('isUiResource', () => {
  it('needs both the ui:// scheme and the MCP App MIME type', () => {
    expect(isUiResource({ uri: 'ui://a', mimeType: MCP_APP_MIME_TYPE })).toBe(true);
    expect(isUiResource({ uri: 'ui://a', mimeType: 'text/html' })).toBe(false);
    expect(isUiResource({ uri: 'notes://a', mimeType: MCP_APP_MIME_TYPE })).toBe(false);
  });
});

describe('uiContents', () => {
  const meta = { prefersBorder: true };

  it('sends a string as text, with the MIME type and _meta.ui', () => {
    expect(uiContents('<!doctype html>', 'ui://a', meta)).toEqual({
      text: '<!doctype html>',
      mimeType: MCP_APP_MIME_TYPE,
      _meta: { ui: meta },
    });
  });

  it('sends bytes as a base64 blob, a slice of a larger buffer included', () => {
    const buffer = Buffer.from('xx<p>hi</p>yy');
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset + 2, 9);
    expect(uiContents(bytes, 'ui://a', undefined)).toEqual({
      blob: Buffer.from('<p>hi</p>').toString('base64'),
      mimeType: MCP_APP_MIME_TYPE,
    });
  });

  it('refuses anything else, naming the view', () => {
    expect(() => uiContents({ html: '<p>' }, 'ui://a', undefined)).toThrow(/ui:\/\/a must return its HTML/);
  });
});
