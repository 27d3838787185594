/**
 * When the platform's own body parser fails on a request to the MCP endpoint (malformed JSON, a
 * body over its limit), the client still gets a JSON-RPC error instead of the platform's
 * generic error body. Every other error, and every other route, is left to the platform.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import { ErrorCode, failure } from '../../protocol/json-rpc';
import { FORBIDDEN, sendJson } from './http-exchange';
import { normalizePath } from './http-paths';

type BodyError = 'parse' | 'too-large';

const EXPRESS_ERRORS: Readonly<Record<string, BodyError>> = {
  'entity.parse.failed': 'parse',
  'entity.too.large': 'too-large',
};

const FASTIFY_ERRORS: Readonly<Record<string, BodyError>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'parse',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'parse',
  FST_ERR_CTP_BODY_TOO_LARGE: 'too-large',
};

function answer(kind: BodyError | 'forbidden'): { status: number; body: unknown } {
  switch (kind) {
    case 'parse':
      return { status: 400, body: failure(null, ErrorCode.ParseError, 'Parse error') };
    case 'too-large':
      return { status: 413, body: failure(null, ErrorCode.InvalidRequest, 'Request body too large') };
    case 'forbidden':
      return { status: 403, body: FORBIDDEN };
  }
}

/** Installs the bridge on the application's HTTP platform (Express or Fastify), for the MCP endpoints at `paths`. */
export function installBodyErrorBridge(
  adapterHost: HttpAdapterHost | undefined,
  paths: readonly string[],
  /** The Host/Origin check (`false` turns the answer into a 403), setting the CORS headers on `res`. */
  admit: (req: IncomingMessage, res: ServerResponse) => boolean = () => true,
): void {
  const adapter = adapterHost?.httpAdapter;
  // An application context (stdio) has no HTTP platform: its adapter is null.
  if (adapter === undefined || adapter === null) {
    return;
  }
  const suffixes = paths.map(normalizePath);
  const isMcpPath = (url: string | undefined): boolean => {
    const path = (url ?? '').split('?')[0].replace(/\/+$/, '');
    return suffixes.some((suffix) => path.endsWith(suffix));
  };

  if (adapter.getType() === 'express') {
    // Registered before Nest's own error handler, which still sees every other error.
    adapter
      .getInstance<{ use: (handler: unknown) => void }>()
      .use(
        (
          error: { type?: string },
          req: IncomingMessage & { originalUrl?: string },
          res: ServerResponse,
          next: (error: unknown) => void,
        ) => {
          const kind = EXPRESS_ERRORS[error?.type ?? ''];
          if (kind === undefined || !isMcpPath(req.originalUrl ?? req.url)) {
            next(error);
            return;
          }
          const { status, body } = answer(admit(req, res) ? kind : 'forbidden');
          sendJson(res, status, body);
        },
      );
    return;
  }

  if (adapter.getType() === 'fastify') {
    type Request = { url: string; raw: IncomingMessage; mcpBodyError?: BodyError };
    type Reply = { raw: ServerResponse; code(status: number): Reply; header(name: string, value: string): Reply };
    const fastify = adapter.getInstance<{
      addHook(name: 'onError', hook: (request: Request, reply: Reply, error: { code?: string }) => Promise<void>): void;
      addHook(name: 'onSend', hook: (request: Request, reply: Reply, payload: unknown) => Promise<unknown>): void;
    }>();
    // Fastify answers parser errors through its error handler; mark them here and rewrite the
    // answer just before it is sent.
    fastify.addHook('onError', async (request, _reply, error) => {
      const kind = FASTIFY_ERRORS[error?.code ?? ''];
      if (kind !== undefined && isMcpPath(request.url)) {
        request.mcpBodyError = kind;
      }
    });
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (request.mcpBodyError === undefined) {
        return payload;
      }
      const { status, body } = answer(admit(request.raw, reply.raw) ? request.mcpBodyError : 'forbidden');
      reply.code(status).header('content-type', 'application/json');
      return JSON.stringify(body);
    });
  }
}
