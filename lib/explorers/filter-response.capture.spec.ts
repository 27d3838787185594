import { BadRequestException, Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { FilterResponseCapture } from './filter-response.capture';
import { createExecutionContext } from '../shared/nest-internals';

/** The adapter methods filters reach a response through, with the response untyped. */
interface AnyAdapter {
  reply(response: unknown, body: unknown, status?: number): unknown;
  status(response: unknown, status: number): unknown;
  end(response: unknown, message?: string): unknown;
  isHeadersSent(response: unknown): boolean;
  getHeader(response: unknown, name: string): unknown;
  setHeader(response: unknown, name: string, value: string): unknown;
}

/**
 * What filters do to a response, done to the capture by Nest's own adapters and by
 * `BaseExceptionFilter`: everything is recorded, nothing fails, and the capture says it was written.
 */
describe('FilterResponseCapture', () => {
  const fastify = new FastifyAdapter();
  // The capture stands for either platform's response, which the adapters' types name.
  const adapters: Array<{ name: string; adapter: AnyAdapter }> = [
    { name: 'ExpressAdapter', adapter: new ExpressAdapter() },
    { name: 'FastifyAdapter', adapter: fastify },
  ];

  afterAll(async () => {
    await fastify.close();
  });

  describe.each(adapters)('through $name', ({ adapter }) => {
    it('reply(): the status and body of the docs’ catch-all filter', () => {
      const response = new FilterResponseCapture();
      expect(adapter.isHeadersSent(response)).toBe(false);
      const body = { statusCode: 500, timestamp: '2026-01-01T00:00:00.000Z', path: '/mcp' };
      adapter.reply(response, body, 500);
      expect(response).toMatchObject({ written: true, statusCode: 500, body });
      expect(adapter.isHeadersSent(response)).toBe(true);
    });

    it('reply() of an error body under a non-JSON content type sets JSON, on the capture only', () => {
      const response = new FilterResponseCapture();
      adapter.setHeader(response, 'Content-Type', 'text/plain');
      const warn = jest.spyOn(Logger, 'warn').mockImplementation(() => undefined);
      try {
        adapter.reply(response, { statusCode: 400, message: 'bad' }, 400);
      } finally {
        warn.mockRestore();
      }
      expect(adapter.getHeader(response, 'content-type')).toBe('application/json');
      expect(response).toMatchObject({ written: true, statusCode: 400, body: { statusCode: 400, message: 'bad' } });
    });

    it('reply() without a body, status() and end()', () => {
      const empty = new FilterResponseCapture();
      adapter.reply(empty, undefined, 403);
      expect(empty).toMatchObject({ written: true, statusCode: 403, body: undefined });

      const ended = new FilterResponseCapture();
      adapter.status(ended, 418);
      expect(ended.written).toBe(false);
      adapter.end(ended, 'short and stout');
      expect(ended).toMatchObject({ written: true, statusCode: 418, body: 'short and stout' });
    });

    it('BaseExceptionFilter.catch writes an HttpException and an unknown error there', () => {
      const filter = new BaseExceptionFilter(
        adapter as unknown as ConstructorParameters<typeof BaseExceptionFilter>[0],
      );
      const hostOf = (response: FilterResponseCapture) =>
        createExecutionContext([{}, response, {}, {}], Object, () => undefined, 'mcp');

      const invalid = new FilterResponseCapture();
      filter.catch(new BadRequestException(['a is missing', 'b is missing']), hostOf(invalid));
      expect(invalid).toMatchObject({
        written: true,
        statusCode: 400,
        body: { statusCode: 400, message: ['a is missing', 'b is missing'], error: 'Bad Request' },
      });

      const unknown = new FilterResponseCapture();
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      try {
        filter.catch(new Error('disk full'), hostOf(unknown));
      } finally {
        logged.mockRestore();
      }
      expect(unknown).toMatchObject({
        written: true,
        statusCode: 500,
        body: { statusCode: 500, message: 'Internal server error' },
      });
    });
  });

  it('takes the Express and Fastify calls a filter makes itself', () => {
    const express = new FilterResponseCapture();
    expect(express.status(404).json({ message: 'No order 7' })).toBe(express);
    expect(express).toMatchObject({ written: true, statusCode: 404, body: { message: 'No order 7' } });
    expect(express.headersSent).toBe(true);

    const reply = new FilterResponseCapture();
    reply.code(429).header('Retry-After', '5').headers({ 'X-Limit': '10' }).send({ message: 'Slow down' });
    expect(reply).toMatchObject({ sent: true, statusCode: 429, body: { message: 'Slow down' } });
    expect(reply.getHeaders()).toEqual({ 'retry-after': '5', 'x-limit': '10' });
    expect(reply.raw).toBe(reply);

    const node = new FilterResponseCapture();
    node.writeHead(503);
    node.write('down ');
    node.end('for now');
    expect(node).toMatchObject({ written: true, statusCode: 503, body: 'down for now' });

    const status = new FilterResponseCapture();
    status.set({ 'X-A': '1' }).append('X-A', '2').type('text/plain').sendStatus(401);
    expect(status).toMatchObject({ written: true, statusCode: 401 });
    expect(status.get('x-a')).toEqual(['1', '2']);
    expect(status.hasHeader('content-type')).toBe(true);
    status.removeHeader('content-type');
    expect(status.getHeader('content-type')).toBeUndefined();
  });

  it('keeps the first answer sent', () => {
    const response = new FilterResponseCapture();
    response.status(400).send({ message: 'first' });
    response.status(500).send({ message: 'second' });
    expect(response).toMatchObject({ statusCode: 400, body: { message: 'first' } });
  });
});
