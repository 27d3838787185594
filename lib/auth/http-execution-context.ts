import type { ExecutionContext, Type } from '@nestjs/common';
import type { HttpArgumentsHost, RpcArgumentsHost, WsArgumentsHost } from '@nestjs/common/interfaces';

/**
 * The `ExecutionContext` (type `'http'`) the module hands to a guard it runs itself on one of its
 * routes, outside Nest's router: the application's authentication guard (`auth.guard`) and the
 * guards of `endpointDecorators`. Its arguments are those of an HTTP route: the platform's request
 * and response; its class and handler are the endpoint's controller and route method, so that a
 * guard reading metadata (`@Public()`, `@SkipThrottle()`) reads it where it would on a route.
 */
export class McpHttpExecutionContext implements ExecutionContext {
  private readonly args: [request: unknown, response: unknown];

  constructor(
    request: unknown,
    response: unknown,
    private readonly controller: Type<unknown>,
    private readonly handler: (...args: unknown[]) => unknown,
  ) {
    this.args = [request, response];
  }

  getType<T extends string = 'http'>(): T {
    return 'http' as T;
  }

  getClass<T = unknown>(): Type<T> {
    return this.controller as Type<T>;
  }

  getHandler(): (...args: unknown[]) => unknown {
    return this.handler;
  }

  getArgs<T extends unknown[] = unknown[]>(): T {
    return this.args as unknown as T;
  }

  getArgByIndex<T = unknown>(index: number): T {
    return this.args[index] as T;
  }

  switchToHttp(): HttpArgumentsHost {
    const [request, response] = this.args;
    return {
      getRequest: <T>() => request as T,
      getResponse: <T>() => response as T,
      getNext: <T>() => undefined as T,
    };
  }

  switchToRpc(): RpcArgumentsHost {
    return { getData: <T>() => undefined as T, getContext: <T>() => undefined as T };
  }

  switchToWs(): WsArgumentsHost {
    return {
      getData: <T>() => undefined as T,
      getClient: <T>() => undefined as T,
      getPattern: () => '',
    };
  }
}
