import { consolePage, escapeAttribute } from './console-page';

describe('consolePage', () => {
  it('is the page of the console contract', () => {
    expect(
      consolePage({
        endpoints: { streamable: '/mcp', simple: '/rpc', sse: '/sse', sseMessages: '/messages' },
        assetsPath: '/mcp/console/assets',
      }),
    ).toBe(
      '<!doctype html><html lang="en"><head><meta charset="utf-8">\n' +
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
        '<meta name="mcp-endpoint" content="/mcp">\n' +
        `<meta name="mcp-endpoints" content='{"streamable":"/mcp","simple":"/rpc","sse":"/sse","sseMessages":"/messages"}'>\n` +
        '<title>MCP console</title>\n' +
        '<link rel="icon" type="image/svg+xml" href="/mcp/console/assets/icon.svg">\n' +
        '<link rel="stylesheet" href="/mcp/console/assets/console.css">\n' +
        '<script type="module" src="/mcp/console/assets/app.js"></script>\n' +
        '</head><body><main id="app"><noscript>The MCP console needs JavaScript.</noscript></main></body></html>\n',
    );
  });

  it('lists only the endpoints the server has', () => {
    const html = consolePage({ endpoints: { streamable: '/api/v1/mcp' }, assetsPath: '/c/assets' });
    expect(html).toContain(`<meta name="mcp-endpoints" content='{"streamable":"/api/v1/mcp"}'>`);
  });

  it('escapes every value it puts in an attribute', () => {
    const html = consolePage({
      endpoints: { streamable: `/a"><script>x</script>`, simple: `/b'&<` },
      assetsPath: `/c"'<>&/assets`,
    });
    expect(html).not.toContain('<script>x');
    expect(html).toContain('<meta name="mcp-endpoint" content="/a&quot;&gt;&lt;script&gt;x&lt;/script&gt;">');
    expect(html).toContain(
      `<meta name="mcp-endpoints" content='{"streamable":"/a\\"&gt;&lt;script&gt;x&lt;/script&gt;","simple":"/b&#39;&amp;&lt;"}'>`,
    );
    expect(html).toContain('<script type="module" src="/c&quot;\'&lt;&gt;&amp;/assets/app.js"></script>');
  });
});

describe('escapeAttribute', () => {
  it('escapes the quote of the attribute, not the other one', () => {
    expect(escapeAttribute(`a"b'c`)).toBe(`a&quot;b'c`);
    expect(escapeAttribute(`a"b'c`, "'")).toBe(`a"b&#39;c`);
  });
});
