import { McpError } from '../protocol/messages/mcp-error';
import { routeResult } from './route-result';

describe('routeResult', () => {
  it('gives a 2xx JSON object as structured content and as text', () => {
    const body = JSON.stringify({ id: 1, title: 'A' });
    expect(routeResult({ status: 201, body })).toEqual({
      content: [{ type: 'text', text: body }],
      structuredContent: { id: 1, title: 'A' },
    });
  });

  it('gives a 2xx array or plain text as text only', () => {
    expect(routeResult({ status: 200, body: '[1,2]' })).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(routeResult({ status: 200, body: 'pong' })).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  });

  it('says the status of an empty 2xx body', () => {
    expect(routeResult({ status: 204, body: '' })).toEqual({ content: [{ type: 'text', text: 'HTTP 204' }] });
  });

  it("gives a 4xx as isError with Nest's message, ValidationPipe's list joined", () => {
    expect(
      routeResult({
        status: 400,
        body: JSON.stringify({
          statusCode: 400,
          message: ['a must be a string', 'b should not be empty'],
          error: 'Bad Request',
        }),
      }),
    ).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 400: a must be a string; b should not be empty' }],
    });
    expect(
      routeResult({ status: 404, body: JSON.stringify({ statusCode: 404, message: 'Note 9 not found' }) }),
    ).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 404: Note 9 not found' }],
    });
    expect(routeResult({ status: 401, body: '' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'HTTP 401' }],
    });
    expect(routeResult({ status: 409, body: 'conflict\n' })).toMatchObject({
      content: [{ text: 'HTTP 409: conflict' }],
    });
  });

  it('turns a 5xx (or any other status) into -32603 without the details', () => {
    for (const status of [500, 503, 302]) {
      let thrown: unknown;
      try {
        routeResult({ status, body: JSON.stringify({ message: 'db password is hunter2' }) });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(McpError);
      expect(thrown).toMatchObject({ code: -32603, message: 'Internal error' });
    }
  });
});
