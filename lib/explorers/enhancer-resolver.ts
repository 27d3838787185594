import type { Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { moduleRefOf, registeredEnhancerOf, type HostWrapper } from '../shared/nest-internals';

/** Resolves an enhancer class to an instance. */
export type EnhancerResolver = (enhancer: Type) => Promise<object>;

/**
 * Resolves enhancer classes outside Nest's own lookup (for a shadow host, or the visibility
 * guards of a handler): the instance Nest made for the host's module when there is one, else a
 * provider of that class anywhere, else a new instance created with the host module's injector.
 * Each class is resolved once, for every handler.
 */
export class McpEnhancerResolver {
  private readonly resolved = new Map<Type, object>();

  constructor(private readonly moduleRef: ModuleRef) {}

  /**
   * A resolver for the enhancers of one host. Request-scoped enhancers cannot be bound this
   * way: `requestScoped` says why, for the startup error.
   */
  forHost(wrapper: HostWrapper, requestScoped: (enhancer: Type) => string): EnhancerResolver {
    const hostRef = moduleRefOf(wrapper) ?? this.moduleRef;
    return async (enhancer) => {
      const known = this.resolved.get(enhancer);
      if (known !== undefined) {
        return known;
      }
      const registered = registeredEnhancerOf(wrapper, enhancer);
      if (registered !== undefined && !registered.isStatic) {
        throw new McpConfigurationError(requestScoped(enhancer));
      }
      let instance: object;
      if (registered?.instance) {
        instance = registered.instance;
      } else {
        try {
          instance = hostRef.get<object>(enhancer, { strict: false });
        } catch {
          instance = await hostRef.create<object>(enhancer);
        }
      }
      this.resolved.set(enhancer, instance);
      return instance;
    };
  }
}
