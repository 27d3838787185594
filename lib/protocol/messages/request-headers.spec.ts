import type { JSONObject } from './json-rpc';
import {
  checkParamHeaders,
  checkStandardHeaders,
  decodeHeaderValue,
  extractParamHeaders,
  headerValue,
  InvalidParamHeaderError,
  type McpHeaderBag,
  type ParamHeaderBinding,
} from './request-headers';

/** The sentinel form a client sends for a value that is not header-safe. */
function encode(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

function objectSchema(properties: JSONObject, extra: JSONObject = {}): JSONObject {
  return { type: 'object', properties, ...extra };
}

describe('extractParamHeaders', () => {
  it('returns no bindings for a schema without x-mcp-header', () => {
    expect(extractParamHeaders(objectSchema({ a: { type: 'string' } }))).toEqual([]);
    expect(extractParamHeaders({})).toEqual([]);
  });

  it('reads bindings through nested properties chains, with lower-cased header names', () => {
    const schema = objectSchema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      options: objectSchema({
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        deep: objectSchema({ dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } }),
      }),
    });
    expect(extractParamHeaders(schema)).toEqual<ParamHeaderBinding[]>([
      { name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' },
      { name: 'Count', header: 'mcp-param-count', path: ['options', 'count'], type: 'integer' },
      { name: 'Dry-Run', header: 'mcp-param-dry-run', path: ['options', 'deep', 'dry'], type: 'boolean' },
    ]);
  });

  it('treats a property literally named "properties" as an ordinary step', () => {
    const schema = objectSchema({ properties: objectSchema({ x: { type: 'string', 'x-mcp-header': 'X' } }) });
    expect(extractParamHeaders(schema)).toEqual([
      { name: 'X', header: 'mcp-param-x', path: ['properties', 'x'], type: 'string' },
    ]);
  });

  describe('token syntax', () => {
    it.each([['Region'], ['X_Tenant'], ['a.b'], ['123'], ["!#$%&'*+-.^_`|~"], ['Z']])('accepts %p', (name) => {
      const [binding] = extractParamHeaders(objectSchema({ p: { type: 'string', 'x-mcp-header': name } }));
      expect(binding.name).toBe(name);
      expect(binding.header).toBe(`mcp-param-${name.toLowerCase()}`);
    });

    it.each([
      ['an empty string', ''],
      ['a space', 'has space'],
      ['a colon', 'a:b'],
      ['a slash', 'a/b'],
      ['parentheses', 'a(b)'],
      ['a quote', '"q"'],
      ['non-ASCII', 'Région'],
      ['CR LF', 'a\r\nb'],
      ['a tab', 'a\tb'],
      ['a number', 42],
      ['null', null],
      ['a boolean', true],
    ])('rejects %s', (_label, name) => {
      expect(() => extractParamHeaders(objectSchema({ p: { type: 'string', 'x-mcp-header': name } }))).toThrow(
        InvalidParamHeaderError,
      );
    });
  });

  it.each([
    ['Region', 'region'],
    ['Region', 'REGION'],
    ['tenant-id', 'Tenant-Id'],
  ])('rejects %p and %p together (names are case-insensitive)', (first, second) => {
    const schema = objectSchema({
      a: { type: 'string', 'x-mcp-header': first },
      b: objectSchema({ c: { type: 'string', 'x-mcp-header': second } }),
    });
    expect(() => extractParamHeaders(schema)).toThrow(/declared twice/);
  });

  describe('types', () => {
    it.each([['string'], ['integer'], ['boolean']])('accepts type %p', (type) => {
      expect(extractParamHeaders(objectSchema({ p: { type, 'x-mcp-header': 'P' } }))[0].type).toBe(type);
    });

    it.each([
      ['number', 'number'],
      ['object', 'object'],
      ['array', 'array'],
      ['null', 'null'],
      ['a type list', ['string', 'null']],
      ['no type at all', undefined],
    ])('rejects %s', (_label, type) => {
      const property: JSONObject = { 'x-mcp-header': 'P' };
      if (type !== undefined) {
        property.type = type;
      }
      expect(() => extractParamHeaders(objectSchema({ p: property }))).toThrow(InvalidParamHeaderError);
    });
  });

  describe('reachability: only chains of "properties"', () => {
    const header = { type: 'string', 'x-mcp-header': 'Hidden' };
    it.each<[string, JSONObject]>([
      ['the schema root itself', { type: 'string', 'x-mcp-header': 'Root' }],
      ['items', objectSchema({ list: { type: 'array', items: header } })],
      ['items of an object', objectSchema({ list: { type: 'array', items: objectSchema({ x: header }) } })],
      ['prefixItems', objectSchema({ list: { type: 'array', prefixItems: [header] } })],
      ['contains', objectSchema({ list: { type: 'array', contains: header } })],
      ['additionalProperties', objectSchema({}, { additionalProperties: header })],
      ['patternProperties', objectSchema({}, { patternProperties: { '^x': header } })],
      ['unevaluatedProperties', objectSchema({}, { unevaluatedProperties: header })],
      ['propertyNames', objectSchema({}, { propertyNames: header })],
      ['dependentSchemas', objectSchema({}, { dependentSchemas: { a: objectSchema({ x: header }) } })],
      ['oneOf', objectSchema({}, { oneOf: [objectSchema({ x: header })] })],
      ['anyOf', objectSchema({}, { anyOf: [objectSchema({ x: header })] })],
      ['allOf', objectSchema({}, { allOf: [objectSchema({ x: header })] })],
      ['not', objectSchema({}, { not: objectSchema({ x: header }) })],
      ['if', objectSchema({}, { if: objectSchema({ x: header }) })],
      ['then', objectSchema({}, { then: objectSchema({ x: header }) })],
      ['else', objectSchema({}, { else: objectSchema({ x: header }) })],
      ['$defs (reached through $ref)', objectSchema({ x: { $ref: '#/$defs/X' } }, { $defs: { X: header } })],
      ['definitions', objectSchema({}, { definitions: { X: objectSchema({ y: header }) } })],
      ['a property under oneOf', objectSchema({ x: { oneOf: [header] } })],
    ])('rejects an annotation under %s', (_where, schema) => {
      expect(() => extractParamHeaders(schema)).toThrow(/not reachable/);
    });
  });
});

describe('headerValue', () => {
  it('reads, trims and joins header values', () => {
    const headers: McpHeaderBag = { a: '  x  ', b: ['1', '2'], c: undefined };
    expect(headerValue(headers, 'a')).toBe('x');
    expect(headerValue(headers, 'b')).toBe('1, 2');
    expect(headerValue(headers, 'c')).toBeUndefined();
    expect(headerValue(headers, 'missing')).toBeUndefined();
  });
});

describe('decodeHeaderValue', () => {
  /** The encoding examples of the 2026-07-28 Streamable HTTP specification. */
  const SPEC_EXAMPLES: Array<[string, string]> = [
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ];

  it.each(SPEC_EXAMPLES)('the specification encodes %p as %p, and the server decodes it back', (original, wire) => {
    expect(encode(original)).toBe(wire);
    expect(decodeHeaderValue(wire)).toBe(original);
  });

  it.each([['us-west1'], ['tools/call'], ['file:///projects/myapp/config.json'], ['a b\tc'], ['']])(
    'passes plain header-safe ASCII %p through',
    (value) => {
      expect(decodeHeaderValue(value)).toBe(value);
    },
  );

  it('decodes an empty sentinel payload to an empty string', () => {
    expect(decodeHeaderValue('=?base64??=')).toBe('');
  });

  it('treats markers in another case as a literal value (markers are case-sensitive)', () => {
    expect(decodeHeaderValue('=?BASE64?SGk=?=')).toBe('=?BASE64?SGk=?=');
  });

  it.each([
    ['non-ASCII', 'Hello, 世界'],
    ['a newline', 'line1\nline2'],
    ['a NUL byte', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['a Latin-1 letter', 'caf\u00e9'],
  ])('refuses a raw value with %s', (_label, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });

  it.each([
    ['invalid base64 characters', '=?base64?not base64!?='],
    ['too much padding', '=?base64?SGk===?='],
    ['non-canonical base64', '=?base64?SGl=?='],
    ['the literal "literal" payload (not canonical base64)', '=?base64?literal?='],
    ['bytes that are not UTF-8', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`],
    ['a truncated UTF-8 sequence', `=?base64?${Buffer.from([0x61, 0xe4, 0xb8]).toString('base64')}?=`],
  ])('refuses a malformed sentinel: %s', (_label, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });

  // Only a value that starts with "=?base64?" AND ends with "?=" has the sentinel's shape; any
  // other value is a plain one, even if it starts like the sentinel (conformance:
  // ServerLiteralMissingBase64Suffix).
  it.each([
    ['a missing suffix', '=?base64?SGVsbG8='],
    ['trailing text after the suffix', '=?base64?SGk=?=x'],
  ])('reads a value that only starts like the sentinel as plain: %s', (_label, raw) => {
    expect(decodeHeaderValue(raw)).toBe(raw);
  });

  // U+FFFD is valid UTF-8 (EF BF BD): a value that contains it must decode like any other.
  it.each([['plain ASCII'], ['snowman ☃'], ['tab\tinside'], ['emoji 🚀'], ['replacement character \uFFFD']])(
    'round-trips %p',
    (value) => {
      expect(decodeHeaderValue(encode(value))).toBe(value);
    },
  );
});

describe('checkStandardHeaders', () => {
  // The fields the method table names for these methods (`nameParam`).
  const NAME_PARAM: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
  const check = (headers: Record<string, string>, method: string, params: Record<string, unknown>) =>
    checkStandardHeaders(headers, method, NAME_PARAM[method], params);

  it('requires Mcp-Method', () => {
    expect(check({}, 'tools/list', {})).toMatch(/Mcp-Method header is required/);
  });

  it.each([
    ['another method', 'tools/call', 'tools/list'],
    ['another case (values are case-sensitive)', 'Tools/List', 'tools/list'],
  ])('refuses an Mcp-Method naming %s', (_label, header, method) => {
    const message = check({ 'mcp-method': header }, method, {});
    expect(message).toMatch(/^Header mismatch: Mcp-Method/);
    expect(message).toContain(header);
  });

  it.each([['tools/list'], ['server/discover'], ['completion/complete'], ['prompts/list']])(
    'accepts a matching Mcp-Method for %s, which needs no Mcp-Name',
    (method) => {
      expect(check({ 'mcp-method': method }, method, {})).toBeUndefined();
    },
  );

  it('tolerates whitespace around header values', () => {
    expect(
      check({ 'mcp-method': '  tools/call ', 'mcp-name': ' echo  ' }, 'tools/call', { name: 'echo' }),
    ).toBeUndefined();
  });

  describe.each([
    ['tools/call', 'name', 'get_weather'],
    ['prompts/get', 'name', 'summarize'],
    ['resources/read', 'uri', 'file:///projects/myapp/config.json'],
  ])('Mcp-Name for %s (params.%s)', (method, field, value) => {
    const params = { [field]: value };

    it('is required', () => {
      expect(check({ 'mcp-method': method }, method, params)).toMatch(/Mcp-Name header is required/);
    });

    it('accepts the body value', () => {
      expect(check({ 'mcp-method': method, 'mcp-name': value }, method, params)).toBeUndefined();
    });

    it('accepts the body value in the base64 sentinel form', () => {
      expect(check({ 'mcp-method': method, 'mcp-name': encode(value) }, method, params)).toBeUndefined();
    });

    it('refuses another value', () => {
      expect(check({ 'mcp-method': method, 'mcp-name': 'other' }, method, params)).toMatch(
        /Mcp-Name header value 'other' does not match body value/,
      );
    });

    it('refuses a value when the body has none', () => {
      expect(check({ 'mcp-method': method, 'mcp-name': value }, method, {})).toMatch(/^Header mismatch: Mcp-Name/);
    });

    it('refuses a malformed value', () => {
      expect(check({ 'mcp-method': method, 'mcp-name': '=?base64?***?=' }, method, params)).toMatch(/malformed/);
    });
  });

  it('compares a non-ASCII name after decoding', () => {
    const headers = { 'mcp-method': 'tools/call', 'mcp-name': encode('météo') };
    expect(check(headers, 'tools/call', { name: 'météo' })).toBeUndefined();
    expect(check(headers, 'tools/call', { name: 'meteo' })).toMatch(/does not match/);
  });

  it('does not take the name of tools/call from params.uri', () => {
    expect(check({ 'mcp-method': 'tools/call', 'mcp-name': 'x' }, 'tools/call', { uri: 'x' })).toMatch(
      /does not match/,
    );
  });
});

describe('checkParamHeaders', () => {
  const region: ParamHeaderBinding = { name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' };
  const count: ParamHeaderBinding = { name: 'Count', header: 'mcp-param-count', path: ['count'], type: 'integer' };
  const dry: ParamHeaderBinding = { name: 'Dry', header: 'mcp-param-dry', path: ['dry'], type: 'boolean' };
  const nested: ParamHeaderBinding = {
    name: 'Tenant',
    header: 'mcp-param-tenant',
    path: ['scope', 'tenant'],
    type: 'string',
  };

  describe('presence (the specification table)', () => {
    it.each<[string, JSONObject, McpHeaderBag, RegExp | undefined]>([
      ['value provided, header matches', { region: 'us-west1' }, { 'mcp-param-region': 'us-west1' }, undefined],
      ['value is null, header omitted', { region: null }, {}, undefined],
      ['parameter not in arguments, header omitted', {}, {}, undefined],
      ['header omitted but value in body', { region: 'us-west1' }, {}, /Mcp-Param-Region header is required/],
      ['value provided, header differs', { region: 'us-west1' }, { 'mcp-param-region': 'eu-west1' }, /does not match/],
      // Not in the table: a header with nothing to match in the body did not come from this request.
      [
        'header present, parameter absent',
        {},
        { 'mcp-param-region': 'us-west1' },
        /present but the argument is absent/,
      ],
      [
        'header present, value null',
        { region: null },
        { 'mcp-param-region': 'x' },
        /present but the argument is absent/,
      ],
    ])('%s', (_label, args, headers, expected) => {
      const message = checkParamHeaders(headers, [region], args);
      if (expected === undefined) {
        expect(message).toBeUndefined();
      } else {
        expect(message).toMatch(expected);
      }
    });

    it('treats false, 0 and the empty string as present values', () => {
      expect(checkParamHeaders({}, [dry], { dry: false })).toMatch(/required/);
      expect(checkParamHeaders({}, [count], { count: 0 })).toMatch(/required/);
      expect(checkParamHeaders({}, [region], { region: '' })).toMatch(/required/);
      expect(checkParamHeaders({ 'mcp-param-count': '0' }, [count], { count: 0 })).toBeUndefined();
    });
  });

  describe('integers are compared numerically', () => {
    it.each<[string, unknown, boolean]>([
      ['42', 42, true],
      ['42.0', 42, true],
      ['-7', -7, true],
      ['0', 0, true],
      ['43', 42, false],
      ['42.5', 42, false],
      ['abc', 42, false],
      ['', 0, false],
      ['42', '42', false],
      [encode('42'), 42, true],
    ])('header %p vs argument %p → match %s', (header, value, matches) => {
      const message = checkParamHeaders({ 'mcp-param-count': header }, [count], { count: value });
      expect(message === undefined).toBe(matches);
    });
  });

  describe('booleans are "true" / "false"', () => {
    it.each<[string, unknown, boolean]>([
      ['true', true, true],
      ['false', false, true],
      ['true', false, false],
      ['True', true, false],
      ['TRUE', true, false],
      ['1', true, false],
      ['false', 'false', false],
    ])('header %p vs argument %p → match %s', (header, value, matches) => {
      const message = checkParamHeaders({ 'mcp-param-dry': header }, [dry], { dry: value });
      expect(message === undefined).toBe(matches);
    });
  });

  describe('strings', () => {
    it.each([['Hello, 世界'], [' padded '], ['line1\nline2'], ['=?base64?literal?=']])(
      'compares %p after decoding the sentinel',
      (value) => {
        expect(checkParamHeaders({ 'mcp-param-region': encode(value) }, [region], { region: value })).toBeUndefined();
      },
    );

    it.each([
      ['raw non-ASCII', 'Hello, 世界'],
      ['a raw control character', 'a\u0001b'],
      ['a malformed sentinel', '=?base64?%%%?='],
      ['a sentinel that is not UTF-8', `=?base64?${Buffer.from([0xc3]).toString('base64')}?=`],
    ])('refuses %s as invalid characters', (_label, header) => {
      expect(checkParamHeaders({ 'mcp-param-region': header }, [region], { region: 'Hello, 世界' })).toMatch(
        /invalid characters/,
      );
    });

    it('does not accept a number for a string binding', () => {
      expect(checkParamHeaders({ 'mcp-param-region': '5' }, [region], { region: 5 })).toMatch(/does not match/);
    });
  });

  it('follows nested paths', () => {
    expect(checkParamHeaders({ 'mcp-param-tenant': 'acme' }, [nested], { scope: { tenant: 'acme' } })).toBeUndefined();
    expect(checkParamHeaders({ 'mcp-param-tenant': 'acme' }, [nested], { scope: { tenant: 'other' } })).toMatch(
      /does not match/,
    );
    expect(checkParamHeaders({}, [nested], { scope: 'not an object' })).toBeUndefined();
  });

  it('checks every binding and reports the first failure', () => {
    const headers = { 'mcp-param-region': 'us-west1', 'mcp-param-count': '3' };
    expect(checkParamHeaders(headers, [region, count], { region: 'us-west1', count: 3 })).toBeUndefined();
    expect(checkParamHeaders(headers, [region, count, dry], { region: 'us-west1', count: 3, dry: true })).toMatch(
      /Mcp-Param-Dry/,
    );
  });
});
