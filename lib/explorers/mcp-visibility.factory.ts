import { type CanActivate, HttpException, type Type } from '@nestjs/common';
import type { ExternalContextCreator } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { mcpHandlerArgs } from '../context/mcp-params.factory';
import type { McpAccessDefinition } from '../interfaces/mcp-definitions.interface';
import { MCP_CONTEXT_TYPE } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';
import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import type { McpEnhancerResolver } from './enhancer-resolver';
import type { McpMetadataAccessor } from './mcp-metadata.accessor';
import { createExecutionContext, globalEnhancersOf, type HostWrapper } from '../shared/nest-internals';

type Method = (...args: unknown[]) => unknown;

/**
 * Builds who may call and see a handler: the scopes of `@McpScopes` on its class and method, and
 * a `visible(call, native)` check running its guards marked with `@McpVisibilityGuard()`
 * (global, class and method guards) in a list context. A guard that refuses, or throws an HTTP
 * exception, hides the handler.
 */
export class McpVisibilityFactory {
  constructor(
    private readonly contextCreator: ExternalContextCreator,
    private readonly accessor: McpMetadataAccessor,
    private readonly enhancers: McpEnhancerResolver,
  ) {}

  async create(
    wrapper: HostWrapper,
    instance: Record<string, unknown>,
    methodName: string,
    where: string,
  ): Promise<McpAccessDefinition> {
    const method = instance[methodName] as Method;
    const hostClass = instance.constructor as Type;
    const scopes = this.accessor.getScopes(hostClass, method);
    const declared = [
      ...(globalEnhancersOf(this.contextCreator)?.getGlobalGuards() ?? []),
      ...this.accessor.getGuards(hostClass, method),
    ];
    const marked = declared.filter((guard) => this.accessor.isVisibilityGuard(guard));
    if (marked.length === 0) {
      return scopes.length === 0 ? {} : { scopes };
    }
    // A visibility guard runs for list requests, which belong to no handler's request scope.
    const resolve = this.enhancers.forHost(
      wrapper,
      (guard) =>
        `${where}: the guard ${guard.name} decides visibility (@McpVisibilityGuard()), so it must not be request-scoped.`,
    );
    const guards = (await Promise.all(
      marked.map((guard) => (typeof guard === 'function' ? resolve(guard as Type) : guard)),
    )) as CanActivate[];
    const visible = (call: McpCallContext, native: McpNativeExchange | undefined) =>
      allow(
        guards,
        createExecutionContext(mcpHandlerArgs(undefined, call, native), hostClass, method, MCP_CONTEXT_TYPE),
      );
    return scopes.length === 0 ? { visible } : { scopes, visible };
  }
}

async function allow(guards: readonly CanActivate[], context: ReturnType<typeof createExecutionContext>) {
  for (const guard of guards) {
    try {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (allowed !== true) {
        return false;
      }
    } catch (error) {
      if (error instanceof HttpException) {
        return false;
      }
      throw error;
    }
  }
  return true;
}
