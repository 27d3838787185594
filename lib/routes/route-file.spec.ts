import { bodyText, fileResult, mediaTypeOf, routeMediaOf } from './route-file';
import { routeResult } from './route-result';

const BYTES = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x80, 0x0a]);
const HERE = { uri: 'http://127.0.0.1:3000/files/1', link: 'http://127.0.0.1:3000/files/1' };

describe('routeMediaOf', () => {
  it.each([
    [undefined, 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['Application/Problem+JSON', 'json'],
    ['text/plain', 'text'],
    ['text/csv; charset=utf-8', 'text'],
    ['application/pdf', 'file'],
    ['image/png', 'file'],
    ['application/octet-stream', 'file'],
    ['audio/mpeg', 'file'],
    ['application/xml', 'file'],
  ])('shows %s as %s', (contentType, media) => {
    expect(routeMediaOf(contentType)).toBe(media);
  });

  it('reads the media type without its parameters', () => {
    expect(mediaTypeOf(' Image/PNG ; q=1')).toBe('image/png');
    expect(mediaTypeOf(';')).toBeUndefined();
  });
});

describe('bodyText', () => {
  it('decodes the charset the type names, UTF-8 otherwise', () => {
    expect(bodyText(Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset="ISO-8859-1"')).toBe('café');
    expect(bodyText(Buffer.from('café'), 'text/plain')).toBe('café');
    expect(bodyText(Buffer.from('café'), 'text/plain; charset=no-such-charset')).toBe('café');
  });
});

describe('fileResult', () => {
  it('embeds a file as a resource with its bytes in base64, named in _meta and in a text block', () => {
    const result = fileResult({ mimeType: 'application/pdf', fileName: 'r.pdf', bytes: BYTES, size: 8 }, HERE);
    expect(result).toEqual({
      content: [
        {
          type: 'resource',
          resource: { uri: HERE.uri, mimeType: 'application/pdf', blob: BYTES.toString('base64') },
          _meta: { 'nest-mcp/fileName': 'r.pdf' },
        },
        { type: 'text', text: 'File r.pdf (application/pdf, 8 bytes)' },
      ],
    });
    expect(Buffer.from(String((result.content[0] as { resource: { blob: string } }).resource.blob), 'base64')).toEqual(
      BYTES,
    );
  });

  it('gives an image as image content, and audio as a resource', () => {
    expect(fileResult({ mimeType: 'image/png', bytes: BYTES }, HERE).content[0]).toEqual({
      type: 'image',
      data: BYTES.toString('base64'),
      mimeType: 'image/png',
    });
    expect(fileResult({ mimeType: 'audio/mpeg', bytes: BYTES }, { uri: 'route:/a' }).content).toEqual([
      { type: 'resource', resource: { uri: 'route:/a', mimeType: 'audio/mpeg', blob: BYTES.toString('base64') } },
      { type: 'text', text: 'File (audio/mpeg, 8 bytes)' },
    ]);
  });

  it('links a file left unread, by its name, else the last segment of its URL', () => {
    expect(fileResult({ mimeType: 'application/zip', fileName: 'all.zip', size: 9000 }, HERE).content[0]).toEqual({
      type: 'resource_link',
      uri: HERE.link,
      name: 'all.zip',
      mimeType: 'application/zip',
      size: 9000,
    });
    const link = { uri: 'http://h/files/a%20b?x=1', link: 'http://h/files/a%20b?x=1' };
    expect(fileResult({ mimeType: 'application/zip' }, link).content).toEqual([
      { type: 'resource_link', uri: link.link, name: 'a b', mimeType: 'application/zip' },
      {
        type: 'text',
        text: `File (application/zip) is too large to inline (routes.maxInlineBytes): fetch it from ${link.link}`,
      },
    ]);
    expect(
      fileResult({ mimeType: 'application/zip' }, { uri: 'http://h/', link: 'http://h/' }).content[0],
    ).toMatchObject({
      name: 'file',
    });
  });

  it('refuses a file left unread without a link', () => {
    expect(() => fileResult({ mimeType: 'application/zip' }, { uri: 'route:/x' })).toThrow(/without a link/);
  });
});

describe('routeResult by media type', () => {
  it('gives a text/* body as text only, even when it parses as JSON', () => {
    expect(routeResult({ status: 200, body: '{"a":1}', contentType: 'text/plain' })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
    });
  });

  it('gives a JSON body as before', () => {
    expect(routeResult({ status: 200, body: '{"a":1}', contentType: 'application/json' })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('gives a 2xx file as the file, at its location', () => {
    const result = routeResult({ status: 200, body: '', file: { mimeType: 'application/pdf', bytes: BYTES } }, HERE);
    expect(result.content[0]).toMatchObject({ type: 'resource', resource: { uri: HERE.uri } });
  });
});
