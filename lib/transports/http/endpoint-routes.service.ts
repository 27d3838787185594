/**
 * The module serves its endpoint routes itself, the way `@nestjs/graphql` serves its own: Nest
 * mounts each endpoint controller (so the global prefix, versioning and middleware apply, and
 * Nest lists the route), and the platform hooks then replace the handler Nest registered for it
 * with one of these. The application's global guards, interceptors, pipes and filters therefore
 * never wrap the transport's own route: they run once per MCP call, around the handler (context
 * type `'mcp'`). What runs on the route is the module's own admission (`McpHttpGuard`), after the
 * guards the application put on the endpoints with `endpointDecorators`, and the endpoint's
 * answer to what escapes (`McpHttpExceptionFilter`).
 *
 * When the platform hooks cannot find a route (an unknown platform, a header-versioned route),
 * Nest's own handler stays: the controller carries the same guard and filter as enhancers.
 */
import {
  type CanActivate,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleInit,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { McpHttpExecutionContext } from '../../auth/http-execution-context';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import { endpointEnhancersOf } from '../../shared/nest-internals';
import { isThenable, type Awaitable } from '../../protocol/messages/thenables';
import { markerOf, type McpEndpointKind, type McpEndpointMarker, type McpEndpointVerb } from './endpoint-marker';
import type { EndpointRouteHandler } from './platform-hooks';
import { McpHttpExceptionFilter } from './mcp-http-exception.filter';
import { McpHttpRefusal } from './mcp-http-refusal.error';

/** The controller method that serves each verb. */
const VERB_METHOD: Readonly<Record<McpEndpointVerb, 'get' | 'post' | 'delete' | 'options'>> = {
  GET: 'get',
  POST: 'post',
  DELETE: 'delete',
  OPTIONS: 'options',
};

type VerbMethod = (request: unknown, response: unknown) => Awaitable<void>;

/** An endpoint controller, as far as its routes are concerned: one method per verb it serves. */
export type EndpointController = object & Partial<Record<(typeof VERB_METHOD)[McpEndpointVerb], VerbMethod>>;

/** One endpoint, once its controller registered and its guards were resolved. */
interface ServedEndpoint {
  readonly controller: EndpointController;
  readonly controllerClass: Type<unknown>;
  /** The guards of `endpointDecorators`, in their order, then `McpHttpGuard`. */
  readonly guards: readonly CanActivate[];
}

/**
 * The handlers of one server's endpoint routes (see the file comment). The endpoint controllers
 * register here when the module starts; a handler finds its endpoint on its first request.
 */
@Injectable()
export class EndpointRoutes implements OnModuleInit, OnApplicationBootstrap {
  private readonly controllers = new Map<McpEndpointKind, EndpointController>();
  private readonly served = new Map<McpEndpointKind, ServedEndpoint>();
  private filter: McpHttpExceptionFilter | undefined;

  constructor(private readonly moduleRef: ModuleRef) {}

  /** An endpoint controller of this server, from its `onModuleInit`. */
  register(controller: EndpointController): void {
    const controllerClass = controller.constructor as Type<unknown>;
    const marker = markerOf(controllerClass);
    if (marker === undefined) {
      return;
    }
    const { interceptors, pipes, filters } = endpointEnhancersOf(controllerClass);
    const foreignFilters = filters.filter((filter) => filter !== McpHttpExceptionFilter);
    const unsupported = [
      interceptors.length > 0 ? 'interceptors' : undefined,
      pipes.length > 0 ? 'pipes' : undefined,
      foreignFilters.length > 0 ? 'exception filters' : undefined,
    ].filter((kind) => kind !== undefined);
    if (unsupported.length > 0) {
      throw new McpConfigurationError(
        `endpointDecorators of server "${marker.server}" add ${unsupported.join(', ')} to its endpoints: ` +
          'the module serves its endpoint routes itself and runs only their guards there. The application’s ' +
          'interceptors, pipes and filters run around each MCP call (context type "mcp"): declare them globally or on the handlers.',
      );
    }
    this.controllers.set(marker.kind, controller);
  }

  onModuleInit(): void {
    this.filter = this.moduleRef.get(McpHttpExceptionFilter, { strict: true });
  }

  /** Guards are resolved once every module is initialised, so an `overrideGuard` is in place. */
  async onApplicationBootstrap(): Promise<void> {
    for (const [kind, controller] of this.controllers) {
      const controllerClass = controller.constructor as Type<unknown>;
      const guards: CanActivate[] = [];
      for (const guard of endpointEnhancersOf(controllerClass).guards) {
        guards.push(await this.guardOf(guard));
      }
      this.served.set(kind, { controller, controllerClass, guards });
    }
  }

  /**
   * The handler that replaces Nest's for one route of an endpoint: the endpoint's guards, then
   * the controller's method of the verb; what they throw is answered by the endpoint's filter.
   */
  handlerOf(marker: McpEndpointMarker, verb: McpEndpointVerb): EndpointRouteHandler {
    const methodName = VERB_METHOD[verb];
    return (request, response) => {
      const endpoint = this.served.get(marker.kind);
      if (endpoint === undefined) {
        // Before the application finished starting (a request that raced `listen`).
        const context = new McpHttpExecutionContext(request, response, Object, () => undefined);
        return this.fail(McpHttpRefusal.starting(), context);
      }
      const method = endpoint.controller[methodName] as VerbMethod;
      const context = new McpHttpExecutionContext(request, response, endpoint.controllerClass, method);
      try {
        const served = this.admitThenServe(endpoint, context, 0, method);
        return isThenable(served) ? served.then(undefined, (error: unknown) => this.fail(error, context)) : served;
      } catch (error) {
        return this.fail(error, context);
      }
    };
  }

  /**
   * Runs the guards from `index` on, synchronously while they answer synchronously (the
   * module's own guard does, without authentication), then serves the request.
   */
  private admitThenServe(
    endpoint: ServedEndpoint,
    context: McpHttpExecutionContext,
    index: number,
    method: VerbMethod,
  ): Awaitable<void> {
    for (let at = index; at < endpoint.guards.length; at += 1) {
      const verdict = endpoint.guards[at].canActivate(context);
      if (verdict === true) {
        continue;
      }
      if (verdict === false) {
        throw McpHttpRefusal.guardRefused();
      }
      const pending = isObservable(verdict) ? lastValueFrom(verdict) : verdict;
      return Promise.resolve(pending).then((passed) => {
        if (!passed) {
          throw McpHttpRefusal.guardRefused();
        }
        return this.admitThenServe(endpoint, context, at + 1, method);
      });
    }
    return method.call(endpoint.controller, context.getArgByIndex(0), context.getArgByIndex(1));
  }

  private fail(error: unknown, context: McpHttpExecutionContext): void {
    this.filter!.catch(error, context);
  }

  /**
   * A guard of the endpoints: the one given, else the instance Nest made for this server's
   * controller (its own module first: each server has its own `McpHttpGuard`, which a test may
   * have replaced with `overrideGuard`), else one made here.
   */
  private async guardOf(guard: Type<CanActivate> | CanActivate): Promise<CanActivate> {
    if (typeof guard !== 'function') {
      return guard;
    }
    for (const strict of [true, false]) {
      try {
        return this.moduleRef.get(guard, { strict });
      } catch {
        // Not there: look further.
      }
    }
    return this.moduleRef.create(guard);
  }
}
