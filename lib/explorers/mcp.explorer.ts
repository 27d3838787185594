import { Injectable, Logger, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MULTIPLE_DECORATORS } from '../mcp.messages';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpEnhancerResolver } from './enhancer-resolver';
import { McpHandlerFactory } from './mcp-handler.factory';
import { McpMetadataAccessor } from './mcp-metadata.accessor';
import { registerHandler } from './mcp-registration';
import { McpVisibilityFactory } from './mcp-visibility.factory';
import type { HostWrapper } from './nest-internals';

/**
 * Finds `@McpTool`, `@McpResource`, `@McpResourceTemplate` and `@McpPrompt` methods on every
 * provider and controller and registers them: the accessor says what a method is, the handler
 * factory builds how it runs (through Nest's pipeline, context type `'mcp'`), the visibility
 * factory who may see it.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpExplorer');
  private readonly accessor: McpMetadataAccessor;
  private readonly handlers: McpHandlerFactory;
  private readonly visibility: McpVisibilityFactory;
  private count: number | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    reflector: Reflector,
    contextCreator: ExternalContextCreator,
    moduleRef: ModuleRef,
    private readonly registry: McpRegistry,
  ) {
    // Built here rather than provided: they serve the explorer alone, once, at startup.
    this.accessor = new McpMetadataAccessor(reflector);
    const enhancers = new McpEnhancerResolver(moduleRef);
    this.handlers = new McpHandlerFactory(contextCreator, moduleRef, this.accessor, enhancers);
    this.visibility = new McpVisibilityFactory(contextCreator, this.accessor, enhancers);
  }

  /**
   * How many decorated handlers discovery registered, once it has finished; `undefined` before
   * (the health indicator reports the registry as not loaded until then).
   */
  get discovered(): number | undefined {
    return this.count;
  }

  async onModuleInit(): Promise<void> {
    const hosts = [
      ...this.discovery.getProviders().map((wrapper) => ({ wrapper, isController: false })),
      ...this.discovery.getControllers().map((wrapper) => ({ wrapper, isController: true })),
    ];
    let count = 0;
    for (const { wrapper, isController } of hosts) {
      const { instance } = wrapper;
      // Aliases (useExisting) point at an instance registered under its own token already.
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) {
        continue;
      }
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) {
        continue;
      }
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        if (await this.explore(wrapper, isController, instance as Record<string, unknown>, methodName)) {
          count += 1;
        }
      }
    }
    this.count = count;
    // The endpoints' startup lines (EndpointBanner) give the counts per kind.
    this.logger.debug(`Registered ${count} MCP handler${count === 1 ? '' : 's'}`);
  }

  private async explore(
    wrapper: HostWrapper,
    isController: boolean,
    instance: Record<string, unknown>,
    methodName: string,
  ): Promise<boolean> {
    const method = instance[methodName];
    if (typeof method !== 'function') {
      return false;
    }
    const found = this.accessor.getHandlers(method as (...args: unknown[]) => unknown);
    if (found.length === 0) {
      return false;
    }
    const className = (instance.constructor as Type | undefined)?.name ?? String(wrapper.name);
    const where = `${className}.${methodName}`;
    if (found.length > 1) {
      throw new McpConfigurationError(MULTIPLE_DECORATORS(where));
    }
    const [handler] = found;
    const invoke = await this.handlers.create({
      wrapper,
      isController,
      instance,
      methodName,
      kind: handler.kind,
      where,
    });
    const access = await this.visibility.create(wrapper, instance, methodName, where);
    try {
      registerHandler(this.registry, { handler, methodName, instance, invoke, access, where });
    } catch (error) {
      if (error instanceof McpConfigurationError && !error.message.includes(where)) {
        throw new McpConfigurationError(`${error.message} (at ${where})`);
      }
      throw error;
    }
    return true;
  }
}
