/**
 * The pipeline around MCP handlers without Nest's fallback error log, and with the application's
 * exception filters kept off the wire.
 *
 * Nest's external exception handler logs every error no filter handled (logger
 * "ExceptionsHandler") and rethrows it; the engine then logs it again, with what the operator
 * needs (the tool, the request id, the caller), and answers McpError and McpToolError (the
 * handler's chosen answers) without any log. So the handlers run on a context creator of their
 * own whose exception handlers rethrow without logging: a failure is logged once, by the engine,
 * and a chosen answer not at all.
 *
 * A filter written for REST routes (the Nest docs' catch-all filter, a `BaseExceptionFilter`
 * subclass) writes its answer to the response; in an MCP call that response carries the call's
 * JSON-RPC answer. So the host a filter gets has a `FilterResponseCapture` as its response (guards
 * and interceptors still see the real one), what the filter wrote goes to the translator as a
 * `FilterAnswer`, and the first time each filter class writes, a warning names it.
 *
 * The fork reads private fields of Nest (see nest-internals.ts). Without them the shared
 * creator is used as it is and the only cost is Nest's log line (and no protection of the wire);
 * without the filter instances, the wire is protected and the warning does not name the filter.
 */
import type { ExecutionContext, Type } from '@nestjs/common';
import type { ExternalContextCreator } from '@nestjs/core';
import { McpLogger } from '../telemetry/mcp.logger';
import { FilterAnswer, type FilterClass, FilterResponseCapture } from './filter-response.capture';
import { createExecutionContext, forkContextCreator, wrapConcreteFilters } from '../shared/nest-internals';

/** What the warning says when the filter's class could not be known. */
const UNNAMED_FILTER = 'An exception filter';

export function createQuietContextCreator(shared: ExternalContextCreator): ExternalContextCreator {
  const fork = forkContextCreator(shared);
  if (fork === undefined) {
    return shared;
  }
  const { creator, filters } = fork;
  const warnings = new FilterWarnings();
  wrapConcreteFilters(filters, (func, filter) => {
    const filterClass = (typeof filter === 'function' ? filter : filter.constructor) as FilterClass;
    return (exception, host) => {
      const response = (host as Partial<ExecutionContext>).getArgByIndex?.(1);
      if (response instanceof FilterResponseCapture) {
        response.filterClass = filterClass;
      }
      return func(exception, host);
    };
  });
  const create = filters.create.bind(filters);
  filters.create = (...args: unknown[]) => {
    const handler = create(...args);
    const invoke = handler.invokeCustomFilters?.bind(handler);
    if (invoke !== undefined) {
      // As Nest's own `next`, minus the log, with the response captured: what a filter wrote is
      // the call's answer, else a filter's value (anything but undefined) is the handler's
      // result, and an unhandled error goes on to the engine.
      handler.next = (exception, host) => {
        const response = new FilterResponseCapture();
        const result = invoke(exception, withResponse(host, response));
        if (response.written) {
          warnings.wrote(response);
          throw new FilterAnswer(response.statusCode, response.body, exception);
        }
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

/** The pipeline's host of an error (Nest's `ExecutionContextHost`) with `response` as its argument 1. */
function withResponse(host: unknown, response: FilterResponseCapture): unknown {
  const context = host as Partial<ExecutionContext>;
  if (typeof context.getArgs !== 'function' || typeof context.getType !== 'function') {
    return host;
  }
  const args = context.getArgs().slice();
  args[1] = response;
  return createExecutionContext(
    args,
    context.getClass?.() as Type,
    context.getHandler?.() as (...args: unknown[]) => unknown,
    context.getType(),
  );
}

/** One warning per filter class that writes to the response of an MCP call. */
class FilterWarnings {
  private readonly logger = new McpLogger('McpPipeline');
  private readonly warned = new Set<FilterClass | string>();

  wrote(response: FilterResponseCapture): void {
    const key = response.filterClass ?? UNNAMED_FILTER;
    if (this.warned.has(key)) {
      return;
    }
    this.warned.add(key);
    const name = response.filterClass?.name || UNNAMED_FILTER;
    this.logger.warn(
      `${name} wrote HTTP ${response.statusCode} to the response of an MCP call. nest-mcp kept it off the wire and ` +
        'answered the call in JSON-RPC instead (400/422: -32602, 401/403: -32004, 404: not found, other 4xx: -32603, ' +
        '500 and above: as an unhandled error). To silence this warning, have the filter leave MCP calls alone: ' +
        "if (host.getType<string>() === 'mcp') return;",
    );
  }
}
