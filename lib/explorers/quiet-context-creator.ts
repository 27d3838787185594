/**
 * The pipeline around MCP handlers without Nest's fallback error log. Nest's external exception
 * handler logs every error no filter handled (logger "ExceptionsHandler") and rethrows it; the
 * engine then logs it again, with what the operator needs (the tool, the request id, the
 * caller), and answers McpError and McpToolError (the handler's chosen answers) without any log.
 * So the handlers run on a context creator of their own whose exception handlers rethrow without
 * logging: a failure is logged once, by the engine, and a chosen answer not at all.
 *
 * The fork reads private fields of Nest (see nest-internals.ts). Without them the shared
 * creator is used as it is and the only cost is Nest's log line.
 */
import type { ExternalContextCreator } from '@nestjs/core';
import { forkContextCreator } from './nest-internals';

export function createQuietContextCreator(shared: ExternalContextCreator): ExternalContextCreator {
  const fork = forkContextCreator(shared);
  if (fork === undefined) {
    return shared;
  }
  const { creator, filters } = fork;
  const create = filters.create.bind(filters);
  filters.create = (...args: unknown[]) => {
    const handler = create(...args);
    const invoke = handler.invokeCustomFilters?.bind(handler);
    if (invoke !== undefined) {
      // As Nest's own `next`, minus the log: a filter's value (anything but undefined) is the
      // handler's result, and an unhandled error goes on to the engine.
      handler.next = (exception, host) => {
        const result = invoke(exception, host);
        if (result !== undefined) {
          return result;
        }
        throw exception;
      };
    }
    return handler;
  };
  return creator;
}
