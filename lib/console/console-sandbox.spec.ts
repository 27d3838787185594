import {
  appViewCsp,
  MAX_SANDBOX_CSP_LENGTH,
  MAX_SANDBOX_CSP_SOURCES,
  parseSandboxCsp,
  SandboxCspError,
  sandboxHeaders,
  sandboxPage,
} from './console-sandbox';

/** A policy as a map of directive → its sources. */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split(';').map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

describe('the policy of an MCP App view', () => {
  it('is the restrictive default of the Apps extension when nothing is declared', () => {
    // The text's default (2026-01-26), plus what its construction adds: fonts of the document's
    // own origin, no frames, no plugins, base URIs of its own origin; and no form submission.
    expect(directives(appViewCsp())).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", "'unsafe-inline'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'"],
      'media-src': ["'self'", 'data:'],
      'connect-src': ["'none'"],
      'frame-src': ["'none'"],
      'object-src': ["'none'"],
      'base-uri': ["'self'"],
      'form-action': ["'none'"],
    });
    expect(appViewCsp({ connectDomains: [], resourceDomains: [] })).toBe(appViewCsp());
  });

  it('adds each declared origin to its directives, and nothing else', () => {
    const policy = directives(
      appViewCsp({
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://*.cdn.example.com'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://base.example.com'],
      }),
    );
    expect(policy['connect-src']).toEqual(['https://api.example.com', 'wss://live.example.com']);
    for (const directive of ['script-src', 'style-src', 'img-src', 'font-src', 'media-src']) {
      expect(policy[directive]).toContain('https://*.cdn.example.com');
      expect(policy[directive]).not.toContain('https://api.example.com');
    }
    expect(policy['frame-src']).toEqual(['https://www.youtube.com']);
    expect(policy['base-uri']).toEqual(['https://base.example.com']);
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['object-src']).toEqual(["'none'"]);
  });
});

describe('the csp query value of the sandbox page', () => {
  it('reads the declared domains, none when absent', () => {
    expect(parseSandboxCsp(null)).toEqual({});
    expect(parseSandboxCsp('')).toEqual({});
    const declared = {
      connectDomains: ['http://127.0.0.1:8080', 'https://api.example.com/v1/'],
      resourceDomains: ['https://*.example.com:*'],
    };
    expect(parseSandboxCsp(JSON.stringify(declared))).toEqual(declared);
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '["https://a.example"]'],
    ['an unknown field', '{"scriptDomains":["https://a.example"]}'],
    ['a field that is not a list', '{"connectDomains":"https://a.example"}'],
    ['a keyword', `{"connectDomains":["'unsafe-eval'"]}`],
    ['a wildcard', '{"connectDomains":["*"]}'],
    ['a second directive', '{"connectDomains":["https://a.example; script-src *"]}'],
    ['a space', '{"resourceDomains":["https://a.example https://b.example"]}'],
    ['a scheme only', '{"connectDomains":["https:"]}'],
    ['another scheme', '{"frameDomains":["javascript://a.example"]}'],
    ['a number', '{"connectDomains":[1]}'],
  ])('refuses %s', (_, raw) => {
    expect(() => parseSandboxCsp(raw)).toThrow(SandboxCspError);
  });

  it('refuses a value or a list past its bound', () => {
    const many = Array.from({ length: MAX_SANDBOX_CSP_SOURCES + 1 }, (_, index) => `https://h${index}.example`);
    expect(() => parseSandboxCsp(JSON.stringify({ connectDomains: many }))).toThrow(/at most/);
    expect(() => parseSandboxCsp(JSON.stringify({ connectDomains: many.slice(1) }))).not.toThrow();
    const long = JSON.stringify({ connectDomains: [`https://${'a'.repeat(MAX_SANDBOX_CSP_LENGTH)}.example`] });
    expect(() => parseSandboxCsp(long)).toThrow(/longer than/);
  });

  // The pattern is linear by construction (each repeated group starts with a character the one
  // before cannot hold); this is the input a backtracking one would choke on. No clock: a timed
  // assertion would only measure the machine.
  it('refuses a long hostile source', () => {
    expect(() => parseSandboxCsp(JSON.stringify({ connectDomains: [`https://${'a.'.repeat(200)}!`] }))).toThrow(
      SandboxCspError,
    );
  });
});

describe('the sandbox page', () => {
  it('is framed by the console only, under the view policy', () => {
    const headers = sandboxHeaders({ connectDomains: ['https://api.example.com'] });
    expect(headers['content-security-policy']).toBe(
      `${appViewCsp({ connectDomains: ['https://api.example.com'] })}; frame-ancestors 'self'`,
    );
    expect(headers).toMatchObject({
      'x-frame-options': 'SAMEORIGIN',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  it('holds its script inline, and refuses one that would end the element early', () => {
    expect(sandboxPage('relay();')).toContain('<script>relay();</script>');
    expect(() => sandboxPage('"</SCRIPT>"')).toThrow(/cannot be inlined/);
  });
});
