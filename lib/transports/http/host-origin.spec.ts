import type { McpHeaderBag } from '../../protocol/messages/request-headers';
import type { IncomingMessage } from 'node:http';
import { HostOriginVerdicts, isLoopbackAddress, passesHostAndOrigin, type HostOriginPolicy } from './host-origin';

const LOOPBACK = '127.0.0.1';
const PUBLIC = '10.0.0.5';

type Row = [
  label: string,
  headers: McpHeaderBag,
  localAddress: string | undefined,
  policy: HostOriginPolicy,
  passes: boolean,
];

/** Puts the expected outcome into each row's title. */
function table(rows: Row[]): Row[] {
  return rows.map(([label, ...rest]) => [`${label} → ${rest[3] ? 'passes' : 'refused'}`, ...rest]);
}

describe('isLoopbackAddress', () => {
  it.each<[string | undefined, boolean]>([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.5', false],
    ['192.168.1.1', false],
    ['::ffff:10.0.0.5', false],
    ['0.0.0.0', false],
    ['2001:db8::1', false],
    ['128.0.0.1', false],
    [undefined, false],
  ])('%p → %s', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});

describe('passesHostAndOrigin', () => {
  describe('Host on a loopback connection, without allowedHosts', () => {
    it.each(
      table([
        ['localhost', { host: 'localhost' }, LOOPBACK, {}, true],
        ['localhost with a port', { host: 'localhost:3000' }, LOOPBACK, {}, true],
        ['LOCALHOST (case-insensitive)', { host: 'LOCALHOST:3000' }, LOOPBACK, {}, true],
        ['127.0.0.1 with a port', { host: '127.0.0.1:8080' }, LOOPBACK, {}, true],
        ['[::1] with a port', { host: '[::1]:3000' }, '::1', {}, true],
        ['[::1] without a port', { host: '[::1]' }, '::1', {}, true],
        ['an IPv4-mapped loopback socket', { host: 'localhost' }, '::ffff:127.0.0.1', {}, true],
        ['a rebinding name', { host: 'evil.example.com' }, LOOPBACK, {}, false],
        ['a name that only starts with localhost', { host: 'localhost.evil.com:3000' }, LOOPBACK, {}, false],
        ['another loopback-looking address', { host: '127.0.0.2' }, LOOPBACK, {}, false],
        ['no Host header', {}, LOOPBACK, {}, false],
      ]),
    )('%s', (_label, headers, address, policy, passes) => {
      expect(passesHostAndOrigin(headers, address, policy)).toBe(passes);
    });
  });

  // A container published on 127.0.0.1, a server on 0.0.0.0 reached on a LAN: a rebinding name
  // reaches it as well as a loopback one, and its Origin always equals its Host.
  describe('Host on a non-loopback connection, without allowedHosts', () => {
    it.each(
      table([
        ['a DNS name (rebinding)', { host: 'rebind.attacker.example' }, PUBLIC, {}, false],
        ['a DNS name with a port', { host: 'mcp.example.com:3000' }, PUBLIC, {}, false],
        [
          'a DNS name whose Origin is its Host',
          { host: 'rebind.attacker.example:3000', origin: 'http://rebind.attacker.example:3000' },
          PUBLIC,
          {},
          false,
        ],
        ['a name under .localhost', { host: 'app.localhost:3000' }, PUBLIC, {}, false],
        ['a name that only starts with localhost', { host: 'localhost.evil.com' }, PUBLIC, {}, false],
        ['a name that starts like an IPv4 address', { host: '10.0.0.5.nip.io' }, PUBLIC, {}, false],
        ['a name that ends like an IPv4 address', { host: 'evil.10.0.0.5' }, PUBLIC, {}, false],
        ['an IPv4 address in another notation', { host: '0x0a000005' }, PUBLIC, {}, false],
        ['an IPv6 address without brackets', { host: '2001:db8::1' }, PUBLIC, {}, false],
        ['an unclosed bracket', { host: '[2001:db8::1' }, PUBLIC, {}, false],
        ['a bracketed name', { host: '[evil.example]:3000' }, PUBLIC, {}, false],
        ['no Host header', {}, PUBLIC, {}, false],
        ['a DNS name on an unknown socket address', { host: 'anything' }, undefined, {}, false],
        ['an IPv4 literal', { host: '10.0.0.5' }, PUBLIC, {}, true],
        ['an IPv4 literal with a port', { host: '192.168.1.20:3000' }, PUBLIC, {}, true],
        ['a bracketed IPv6 literal', { host: '[2001:db8::1]' }, PUBLIC, {}, true],
        ['a bracketed IPv6 literal with a port', { host: '[FD00::5]:3000' }, PUBLIC, {}, true],
        ['localhost with a port', { host: 'localhost:3000' }, PUBLIC, {}, true],
        ['127.0.0.1', { host: '127.0.0.1:3000' }, PUBLIC, {}, true],
        ['[::1]', { host: '[::1]:3000' }, PUBLIC, {}, true],
        ['an IPv4 literal on an unknown socket address', { host: '10.0.0.5:3000' }, undefined, {}, true],
        [
          'a page of the IP literal itself (same origin)',
          { host: '10.0.0.5:3000', origin: 'http://10.0.0.5:3000' },
          PUBLIC,
          {},
          true,
        ],
        [
          'a listed name (the list decides)',
          { host: 'mcp.example.com:3000' },
          PUBLIC,
          { allowedHosts: ['mcp.example.com'] },
          true,
        ],
        [
          'an IP literal the list does not name',
          { host: '10.0.0.5:3000' },
          PUBLIC,
          { allowedHosts: ['mcp.example.com'] },
          false,
        ],
      ]),
    )('%s', (_label, headers, address, policy, passes) => {
      expect(passesHostAndOrigin(headers, address, policy)).toBe(passes);
    });
  });

  describe('allowedHosts', () => {
    const names: HostOriginPolicy = { allowedHosts: ['mcp.example.com', 'api.example.com:8443', '[::1]'] };
    it.each(
      table([
        ['a listed name, any port', { host: 'mcp.example.com:1234' }, PUBLIC, names, true],
        ['a listed name without port', { host: 'mcp.example.com' }, PUBLIC, names, true],
        ['a listed name, other case', { host: 'MCP.Example.COM' }, PUBLIC, names, true],
        ['a listed name:port', { host: 'api.example.com:8443' }, PUBLIC, names, true],
        ['a listed name with another port', { host: 'api.example.com:9000' }, PUBLIC, names, false],
        ['a name:port entry without port', { host: 'api.example.com' }, PUBLIC, names, false],
        ['a listed IPv6 name with a port', { host: '[::1]:3000' }, PUBLIC, names, true],
        ['an unlisted name', { host: 'other.example.com' }, PUBLIC, names, false],
        ['a suffix of a listed name', { host: 'x.mcp.example.com' }, PUBLIC, names, false],
        ['no Host header', {}, PUBLIC, names, false],
        ['loopback names are not implied once the option is set', { host: 'localhost' }, LOOPBACK, names, false],
        ['a public name on a loopback socket when listed', { host: 'mcp.example.com' }, LOOPBACK, names, true],
        ['"*" accepts any host', { host: 'whatever.test' }, LOOPBACK, { allowedHosts: ['*'] }, true],
        ['"*" accepts a missing host', {}, LOOPBACK, { allowedHosts: ['*'] }, true],
      ]),
    )('%s', (_label, headers, address, policy, passes) => {
      expect(passesHostAndOrigin(headers, address, policy)).toBe(passes);
    });
  });

  describe('Origin without allowedOrigins', () => {
    it.each(
      table([
        ['no Origin at all (non-browser client)', { host: 'localhost' }, LOOPBACK, {}, true],
        [
          'a localhost origin, any port',
          { host: 'localhost:3000', origin: 'http://localhost:5173' },
          LOOPBACK,
          {},
          true,
        ],
        ['a 127.0.0.1 origin', { host: 'localhost', origin: 'http://127.0.0.1:8080' }, LOOPBACK, {}, true],
        ['an [::1] origin', { host: '[::1]:3000', origin: 'http://[::1]:3000' }, '::1', {}, true],
        ['an https localhost origin', { host: 'localhost', origin: 'https://localhost' }, LOOPBACK, {}, true],
        [
          'a foreign origin on loopback',
          { host: 'localhost', origin: 'https://evil.example.com' },
          LOOPBACK,
          {},
          false,
        ],
        ['the "null" origin', { host: 'localhost', origin: 'null' }, LOOPBACK, {}, false],
        ['a malformed origin', { host: 'localhost', origin: 'not a url' }, LOOPBACK, {}, false],
        ['a file origin', { host: 'localhost', origin: 'file:///tmp/x.html' }, LOOPBACK, {}, false],
        ['the same origin on a public socket', { host: '10.0.0.5', origin: 'https://10.0.0.5' }, PUBLIC, {}, true],
        ['the same origin with its port', { host: '10.0.0.5:8443', origin: 'https://10.0.0.5:8443' }, PUBLIC, {}, true],
        [
          'the same origin of a listed name',
          { host: 'mcp.example.com', origin: 'https://mcp.example.com' },
          PUBLIC,
          { allowedHosts: ['mcp.example.com'] },
          true,
        ],
        ['another port on a public socket', { host: '10.0.0.5', origin: 'https://10.0.0.5:8443' }, PUBLIC, {}, false],
        [
          'another origin on a public socket',
          { host: '10.0.0.5', origin: 'https://evil.example.com' },
          PUBLIC,
          {},
          false,
        ],
        ['a localhost origin on a public socket', { host: '10.0.0.5', origin: 'http://localhost' }, PUBLIC, {}, false],
        ['an origin without Host on a public socket', { origin: 'https://mcp.example.com' }, PUBLIC, {}, false],
      ]),
    )('%s', (_label, headers, address, policy, passes) => {
      expect(passesHostAndOrigin(headers, address, policy)).toBe(passes);
    });
  });

  describe('allowedOrigins', () => {
    const policy: HostOriginPolicy = { allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] };
    it.each(
      table([
        ['a listed origin', { host: 'localhost', origin: 'https://app.example.com' }, LOOPBACK, policy, true],
        [
          'a listed origin in another case',
          { host: 'localhost', origin: 'HTTPS://APP.example.com' },
          LOOPBACK,
          policy,
          true,
        ],
        [
          'a listed origin with its default port spelled out',
          { host: 'localhost', origin: 'https://app.example.com:443' },
          LOOPBACK,
          policy,
          true,
        ],
        ['a listed origin:port', { host: 'localhost', origin: 'http://localhost:5173' }, LOOPBACK, policy, true],
        [
          'another port of a listed origin',
          { host: 'localhost', origin: 'http://localhost:5174' },
          LOOPBACK,
          policy,
          false,
        ],
        [
          'another scheme of a listed origin',
          { host: 'localhost', origin: 'http://app.example.com' },
          LOOPBACK,
          policy,
          false,
        ],
        ['a prefix trick', { host: 'localhost', origin: 'https://app.example.com.evil.io' }, LOOPBACK, policy, false],
        [
          'an unlisted loopback origin',
          { host: 'localhost', origin: 'http://127.0.0.1:5173' },
          LOOPBACK,
          policy,
          false,
        ],
        ['"null" when not listed', { host: 'localhost', origin: 'null' }, LOOPBACK, policy, false],
        ['"null" when listed', { host: 'localhost', origin: 'null' }, LOOPBACK, { allowedOrigins: ['null'] }, true],
        ['no Origin', { host: 'localhost' }, LOOPBACK, policy, true],
        [
          '"*" accepts any origin',
          { host: 'localhost', origin: 'https://evil.example.com' },
          LOOPBACK,
          { allowedOrigins: ['*'] },
          true,
        ],
        ['"*" accepts "null"', { host: 'localhost', origin: 'null' }, LOOPBACK, { allowedOrigins: ['*'] }, true],
      ]),
    )('%s', (_label, headers, address, rowPolicy, passes) => {
      expect(passesHostAndOrigin(headers, address, rowPolicy)).toBe(passes);
    });
  });

  it('a good Origin does not rescue a bad Host', () => {
    expect(
      passesHostAndOrigin({ host: 'evil.example.com', origin: 'http://localhost' }, LOOPBACK, {
        allowedOrigins: ['*'],
      }),
    ).toBe(false);
  });

  it('reads the first value of repeated headers', () => {
    expect(passesHostAndOrigin({ host: ['localhost', 'evil.example.com'] }, LOOPBACK, {})).toBe(true);
    expect(
      passesHostAndOrigin(
        { host: 'localhost', origin: ['https://evil.example.com', 'http://localhost'] },
        LOOPBACK,
        {},
      ),
    ).toBe(false);
  });
});

describe('HostOriginVerdicts', () => {
  const requestOn = (socket: object, headers: McpHeaderBag): IncomingMessage =>
    ({ headers, socket }) as unknown as IncomingMessage;

  it('judges each request of a connection by its own Host and Origin, not by the last verdict', () => {
    const verdicts = new HostOriginVerdicts({});
    const socket = { localAddress: LOOPBACK };
    expect(verdicts.of(requestOn(socket, { host: '127.0.0.1:3000' }))).toBeUndefined();
    expect(verdicts.of(requestOn(socket, { host: 'evil.example:3000' }))).toBe('host');
    expect(verdicts.of(requestOn(socket, { host: '127.0.0.1:3000', origin: 'http://evil.example' }))).toBe('origin');
    expect(verdicts.of(requestOn(socket, { host: '127.0.0.1:3000' }))).toBeUndefined();
  });

  it('keeps connections apart: the same headers on a loopback and on a public address', () => {
    const verdicts = new HostOriginVerdicts({});
    const headers = { host: '10.0.0.5:3000' };
    expect(verdicts.of(requestOn({ localAddress: LOOPBACK }, headers))).toBe('host');
    expect(verdicts.of(requestOn({ localAddress: PUBLIC }, headers))).toBeUndefined();
    expect(verdicts.of(requestOn({ localAddress: LOOPBACK }, headers))).toBe('host');
  });

  it('refuses a rebinding name on a public address, connection after connection', () => {
    const verdicts = new HostOriginVerdicts({});
    const headers = { host: 'rebind.attacker.example:3000', origin: 'http://rebind.attacker.example:3000' };
    const socket = { localAddress: PUBLIC };
    expect(verdicts.of(requestOn(socket, headers))).toBe('host');
    expect(verdicts.of(requestOn(socket, headers))).toBe('host');
    expect(verdicts.of(requestOn({ localAddress: '::ffff:172.17.0.2' }, headers))).toBe('host');
  });

  it('judges a request without a socket (an injected one) from its headers alone', () => {
    const verdicts = new HostOriginVerdicts({ allowedHosts: ['notes.example'] });
    expect(verdicts.of({ headers: { host: 'notes.example' } } as unknown as IncomingMessage)).toBeUndefined();
    expect(verdicts.of({ headers: { host: 'other.example' } } as unknown as IncomingMessage)).toBe('host');
  });
});
