import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpAdapterHost } from '@nestjs/core';
import { toExchange, type HttpExchange } from './http-exchange';

/**
 * The raw Node request and response behind the platform's objects: Express hands them over,
 * Fastify wraps them (and its reply is taken over once the module answers on the raw response).
 */
@Injectable()
export class HttpExchanges implements OnModuleInit {
  /** Whether the platform wraps Node's request and response (Fastify) or hands them over (Express). */
  private wrapped = true;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    this.wrapped = this.adapterHost?.httpAdapter?.getType() !== 'express';
  }

  /** The exchange the module answers on; on Fastify the reply is hijacked from here on. */
  of(request: unknown, response: unknown): HttpExchange {
    return toExchange(request, response, this.wrapped);
  }

  /** The raw request and response, for checks that read them before anything is answered (no hijack). */
  raw(request: unknown, response: unknown): { req: IncomingMessage; res: ServerResponse } {
    if (!this.wrapped) {
      return { req: request as IncomingMessage, res: response as ServerResponse };
    }
    return {
      req: (request as { raw?: IncomingMessage }).raw ?? (request as IncomingMessage),
      res: (response as { raw?: ServerResponse }).raw ?? (response as ServerResponse),
    };
  }
}
