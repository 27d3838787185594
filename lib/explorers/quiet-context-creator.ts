/**
 * The pipeline around MCP handlers without Nest's fallback error log. Nest's external exception
 * handler logs every error no filter handled (logger "ExceptionsHandler") and rethrows it; the
 * engine then logs it again, with what the operator needs (the tool, the request id, the
 * caller). So the handlers run on a context creator of their own whose exception handlers
 * rethrow without logging: the failure is logged once, by the engine.
 *
 * This reads two fields Nest does not document: `container` on the application's
 * `ExternalContextCreator` (set by its `fromContainer`, Nest 8 to 12) and
 * `filtersContextCreator` on the new one. Without them the shared creator is used as it is and
 * the only cost is the second log line.
 */
import { ExternalContextCreator } from '@nestjs/core';

interface ExceptionsHandlerLike {
  next(exception: unknown, host: unknown): unknown;
  invokeCustomFilters?(exception: unknown, host: unknown): unknown;
}

interface FiltersContextLike {
  create(...args: unknown[]): ExceptionsHandlerLike;
}

export function createQuietContextCreator(shared: ExternalContextCreator): ExternalContextCreator {
  const container = (shared as unknown as { container?: unknown }).container;
  if (container === undefined) {
    return shared;
  }
  const creator = ExternalContextCreator.fromContainer(
    container as Parameters<typeof ExternalContextCreator.fromContainer>[0],
  );
  const filters = (creator as unknown as { filtersContextCreator?: FiltersContextLike }).filtersContextCreator;
  if (typeof filters?.create !== 'function') {
    return shared;
  }
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
