import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { isMcpError, isMcpToolError, McpError, McpInternalError, McpToolError } from '../protocol/messages/mcp-error';
import type { McpEra } from '../protocol/messages/revisions';
import { FilterAnswer } from './filter-response.capture';
import { translateHttpException } from './http-exception.translator';
import type { McpHandlerKind } from './mcp-metadata.accessor';

const KINDS: McpHandlerKind[] = ['tool', 'resource', 'resource template', 'prompt'];
const ERAS: McpEra[] = ['legacy', 'modern'];

/** What a translated error is answered as: a JSON-RPC error, a tool error, or the error itself. */
function answer(error: unknown): unknown {
  if (isMcpError(error)) {
    return error.toJsonRpc();
  }
  if (isMcpToolError(error)) {
    return { toolError: error.message };
  }
  return error;
}

function translate(error: unknown, kind: McpHandlerKind = 'tool', era: McpEra = 'legacy'): unknown {
  return answer(translateHttpException(error, kind, era));
}

describe('translateHttpException', () => {
  describe('a 401 or 403 HttpException is the access-denied error, for every kind and era', () => {
    const cases = KINDS.flatMap((kind) => ERAS.map((era) => ({ kind, era })));

    it.each(cases)('$kind, $era era', ({ kind, era }) => {
      // What Nest throws for a guard that returns false.
      expect(translate(new ForbiddenException('Forbidden resource'), kind, era)).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'Forbidden resource',
        data: { status: 403 },
      });
      expect(translate(new UnauthorizedException('Sign in first'), kind, era)).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'Sign in first',
        data: { status: 401 },
      });
      expect(translate(new HttpException({ message: ['no token', 'no cookie'] }, 401), kind, era)).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'no token; no cookie',
        data: { status: 401 },
      });
    });
  });

  it('any other HttpException of a tool is a tool error; a 5xx says nothing of itself', () => {
    expect(translate(new BadRequestException('quantity must be positive'))).toEqual({
      toolError: 'quantity must be positive',
    });
    expect(translate(new NotFoundException('No widget 7'))).toEqual({ toolError: 'No widget 7' });
    expect(translate(new InternalServerErrorException('db-internal-3'))).toEqual({ toolError: 'Internal error' });
  });

  it('elsewhere it is the JSON-RPC error of its status', () => {
    expect(translate(new BadRequestException('bad'), 'prompt')).toEqual({ code: -32602, message: 'bad' });
    expect(translate(new NotFoundException('gone'), 'resource', 'legacy')).toEqual({ code: -32002, message: 'gone' });
    expect(translate(new NotFoundException('gone'), 'resource', 'modern')).toEqual({ code: -32602, message: 'gone' });
    expect(translate(new ConflictException('busy'), 'resource')).toEqual({ code: -32603, message: 'busy' });
  });

  it("passes the handler's chosen answers and any other error as they are", () => {
    const chosen = new McpError(1001, 'Quota exceeded');
    const toolError = new McpToolError('pick another date');
    const plain = new Error('bug');
    expect(translateHttpException(chosen, 'tool', 'legacy')).toBe(chosen);
    expect(translateHttpException(toolError, 'tool', 'legacy')).toBe(toolError);
    expect(translateHttpException(plain, 'tool', 'legacy')).toBe(plain);
  });

  describe('what an exception filter wrote (a FilterAnswer), for every kind', () => {
    const plain = new Error('connect ECONNREFUSED db-internal:5432');

    it.each(KINDS)('%s: 400 and 422 are Invalid params with the body message (a list joined)', (kind) => {
      const body = { statusCode: 400, message: ['sku must be a string', 'quantity must be positive'] };
      expect(translate(new FilterAnswer(400, body, new BadRequestException(body)), kind)).toEqual({
        code: -32602,
        message: 'sku must be a string; quantity must be positive',
      });
      expect(translate(new FilterAnswer(422, { statusCode: 422 }, new HttpException('Too few', 422)), kind)).toEqual({
        code: -32602,
        message: 'Too few',
      });
    });

    it.each(KINDS)("%s: 401 and 403 are the access-denied error, else the exception's message", (kind) => {
      const docsBody = { statusCode: 403, timestamp: '2026-01-01T00:00:00.000Z', path: '/mcp' };
      expect(translate(new FilterAnswer(403, docsBody, new ForbiddenException('Forbidden resource')), kind)).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'Forbidden resource',
        data: { status: 403 },
      });
      expect(translate(new FilterAnswer(401, { message: 'Token expired' }, plain), kind)).toEqual({
        code: McpErrorCode.AccessDenied,
        message: 'Token expired',
        data: { status: 401 },
      });
    });

    it('404 is the not-found code of the kind and era', () => {
      const written = (kind: McpHandlerKind, era: McpEra) =>
        translate(new FilterAnswer(404, { statusCode: 404 }, new NotFoundException('No item 7')), kind, era);
      expect(written('resource', 'legacy')).toEqual({ code: -32002, message: 'No item 7' });
      expect(written('resource template', 'modern')).toEqual({ code: -32602, message: 'No item 7' });
      expect(written('prompt', 'legacy')).toEqual({ code: -32602, message: 'No item 7' });
    });

    it('any other status below 500 is -32603 with the body message, from JSON or plain text', () => {
      expect(translate(new FilterAnswer(409, JSON.stringify({ message: 'Busy, retry' }), plain))).toEqual({
        code: -32603,
        message: 'Busy, retry',
      });
      expect(translate(new FilterAnswer(429, 'Slow down', plain), 'resource')).toEqual({
        code: -32603,
        message: 'Slow down',
      });
      expect(translate(new FilterAnswer(409, Buffer.from('Locked'), plain))).toEqual({
        code: -32603,
        message: 'Locked',
      });
    });

    it('500 and above: a tool answers -32603 and the engine logs the caught exception; others as without a filter', () => {
      const body = { statusCode: 500, message: 'Internal server error' };
      const tool = translateHttpException(new FilterAnswer(500, body, plain), 'tool', 'legacy');
      expect(tool).toBeInstanceOf(McpInternalError);
      expect(tool).toMatchObject({ code: -32603, message: 'Internal error', failure: plain });
      expect(translateHttpException(new FilterAnswer(503, body, plain), 'resource', 'modern')).toBe(plain);
      const prompt = new InternalServerErrorException('db-internal-3');
      expect(translate(new FilterAnswer(500, body, prompt), 'prompt')).toEqual({
        code: -32603,
        message: 'Internal error',
      });
    });
  });
});
