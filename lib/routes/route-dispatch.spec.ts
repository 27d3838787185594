import { createServer, type Server, type ServerResponse } from 'node:http';
import { dispatchRoute, type RouteBodyBounds } from './route-dispatch';

const BOUNDS: RouteBodyBounds = { maxResponseBytes: 4096, maxInlineBytes: 1024, linkable: true };

/** A server whose one route answers with `answer`; resolves `closed` when that response closes. */
function serving(answer: (res: ServerResponse) => void): { server: Server; closed: Promise<boolean> } {
  let closed!: (finished: boolean) => void;
  const done = new Promise<boolean>((resolve) => (closed = resolve));
  const server = createServer((_req, res) => {
    res.once('close', () => closed(res.writableFinished));
    answer(res);
  });
  return { server, closed: done };
}

describe('dispatchRoute', () => {
  it('leaves a file unread when its Content-Length is over the inline bound', async () => {
    const { server, closed } = serving((res) => {
      res.writeHead(200, {
        'content-type': 'application/zip',
        'content-length': '10000000',
        'content-disposition': 'attachment; filename="all.zip"',
      });
      res.write(Buffer.alloc(16));
      // Never ends: only an early stop settles the call.
    });
    const response = await dispatchRoute(server, { method: 'GET', path: '/all.zip', headers: {} }, BOUNDS);
    expect(response).toEqual({
      status: 200,
      body: '',
      contentType: 'application/zip',
      file: { mimeType: 'application/zip', fileName: 'all.zip', size: 10000000 },
    });
    expect(await closed).toBe(false);
  });

  it('fails at once a JSON body whose Content-Length is over maxResponseBytes', async () => {
    const { server, closed } = serving((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write('{');
    });
    await expect(dispatchRoute(server, { method: 'GET', path: '/', headers: {} }, BOUNDS)).rejects.toMatchObject({
      code: -32603,
      message: "The route's response is larger than 4096 bytes",
    });
    expect(await closed).toBe(false);
  });

  it('fails a file over the inline bound that cannot be linked', async () => {
    const { server } = serving((res) => {
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end(Buffer.alloc(2000));
    });
    await expect(
      dispatchRoute(server, { method: 'POST', path: '/', headers: {} }, { ...BOUNDS, linkable: false }),
    ).rejects.toMatchObject({ code: -32603, message: "The route's file is larger than 1024 bytes" });
  });

  it('reads a file under the bound in full, and an error body as text whatever its type', async () => {
    const bytes = Buffer.from([0, 1, 2, 0xff]);
    const file = serving((res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(bytes);
    });
    expect(await dispatchRoute(file.server, { method: 'GET', path: '/', headers: {} }, BOUNDS)).toEqual({
      status: 200,
      body: '',
      contentType: 'image/png',
      file: { mimeType: 'image/png', fileName: undefined, size: undefined, bytes },
    });
    const refused = serving((res) => {
      res.writeHead(404, { 'content-type': 'application/octet-stream' });
      res.end('no such file');
    });
    expect(await dispatchRoute(refused.server, { method: 'GET', path: '/', headers: {} }, BOUNDS)).toEqual({
      status: 404,
      body: 'no such file',
      contentType: 'application/octet-stream',
    });
  });
});
