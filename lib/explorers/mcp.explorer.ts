import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import {
  DiscoveryService,
  ExternalContextCreator,
  MetadataScanner,
  ModuleRef,
  ModulesContainer,
  Reflector,
} from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MCP_EXTENSION_PROVIDERS, MCP_OWN_REGISTRY, MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { placementFault, serverTakes, type McpServerIdentity } from '../identity/server-identity';
import { defaultServerOf, describeServer, serverIdentities } from '../identity/mcp-servers';
import { MULTIPLE_DECORATORS } from '../shared/mcp.messages';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpEnhancerResolver } from './enhancer-resolver';
import { McpHandlerFactory } from './mcp-handler.factory';
import { McpMetadataAccessor, type McpHandlerMetadata } from './mcp-metadata.accessor';
import { registerHandler } from './mcp-registration';
import { McpVisibilityFactory } from './mcp-visibility.factory';
import type { FoundExtensionProvider, McpExtensionProviders } from './mcp-extension-providers';
import type { McpExtensionHooks } from '../interfaces/mcp-extension-options.interface';
import type { HostWrapper } from '../shared/nest-internals';
import { McpLogger } from '../telemetry/mcp.logger';

/**
 * Finds `@McpTool`, `@McpResource`, `@McpUiResource`, `@McpResourceTemplate` and `@McpPrompt` methods on the
 * providers and controllers of the application and registers those its server owns (`ownersOf`:
 * the handlers whose `servers` name it, else those of the modules its `include` names, else, for
 * a server without `include`, those no `include` names): the accessor says what a method is, the
 * handler factory builds how it runs (through Nest's pipeline, context type `'mcp'`), the
 * visibility factory who may see it. The default server's explorer also stops startup for a
 * handler no server takes, or whose `servers` name a server the application does not have.
 * First, it binds the methods of the server's extension providers (found before its engine,
 * `mcp-extension-providers.ts`) to their invokers, and their `entryMeta` hooks to the registry.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  private readonly logger = new McpLogger('McpExplorer');
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
    @Inject(MCP_OWN_REGISTRY) private readonly registry: McpRegistry,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    private readonly modules: ModulesContainer,
    @Inject(MCP_EXTENSION_PROVIDERS) private readonly extensions: McpExtensionProviders,
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
    for (const provider of this.extensions.providers) {
      await this.bindExtension(provider);
    }
    const hosts = [
      ...this.discovery.getProviders().map((wrapper) => ({ wrapper, isController: false })),
      ...this.discovery.getControllers().map((wrapper) => ({ wrapper, isController: true })),
    ];
    const servers = serverIdentities(this.modules);
    // One server checks that every handler has a server; the first one is always there.
    const unclaimed: string[] | undefined = defaultServerOf(servers) === this.identity ? [] : undefined;
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
      const module = wrapper.host?.metatype;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const found = this.handlerOf(wrapper, instance as Record<string, unknown>, methodName);
        if (found === undefined) {
          continue;
        }
        const named = found.handler.options.servers;
        const fault = unclaimed === undefined ? undefined : placementFault(found.where, servers, module, named);
        if (fault !== undefined) {
          unclaimed?.push(fault);
        }
        if (serverTakes(this.identity, servers, module, named)) {
          await this.explore(wrapper, isController, instance as Record<string, unknown>, methodName, found);
          count += 1;
        }
      }
    }
    if (unclaimed !== undefined && unclaimed.length > 0) {
      throw new McpConfigurationError(
        `No MCP server takes ${unclaimed.length === 1 ? 'this handler' : 'these handlers'}: ${unclaimed.join('; ')}. ` +
          "Add the handler's module to a server's include, or name an existing server in the decorator's servers.",
      );
    }
    // Every view is registered now (apps.views with the registry, the decorated ones above).
    this.registry.checkViewLinks();
    this.count = count;
    // The endpoints' startup lines (EndpointBanner) give the counts per kind.
    this.logger.debug(`Registered ${count} MCP handler${count === 1 ? '' : 's'} on ${describeServer(this.identity)}`);
  }

  /**
   * Serves an extension provider's methods through the pipeline, as tools are, and adds its
   * `entryMeta` hook to the registry before any entry is registered.
   */
  private async bindExtension({ wrapper, extension, className, methods }: FoundExtensionProvider): Promise<void> {
    const instance = wrapper.instance as (Record<string, unknown> & McpExtensionHooks) | undefined;
    if (instance === undefined || instance === null) {
      return;
    }
    for (const method of methods) {
      const { methodName, where } = method;
      method.bind(
        await this.handlers.create({
          wrapper,
          isController: false,
          instance,
          methodName,
          kind: 'extension method',
          where,
        }),
      );
    }
    if (typeof instance.entryMeta === 'function') {
      this.registry.addEntryMeta(extension.id, (entry) => instance.entryMeta!(entry), className);
    }
  }

  /** The handler a method is, if it is one: one decorator at most. */
  private handlerOf(
    wrapper: HostWrapper,
    instance: Record<string, unknown>,
    methodName: string,
  ): { handler: McpHandlerMetadata; where: string } | undefined {
    const method = instance[methodName];
    if (typeof method !== 'function') {
      return undefined;
    }
    const found = this.accessor.getHandlers(method as (...args: unknown[]) => unknown);
    const className = (instance.constructor as Type | undefined)?.name ?? String(wrapper.name);
    const where = `${className}.${methodName}`;
    if (found.length === 0) {
      // An extension's method is served through its provider: on any other class it would be lost.
      if (
        this.accessor.getExtensionMethod(method as (...args: unknown[]) => unknown) !== undefined &&
        this.accessor.getExtensionProvider(instance.constructor as Type) === undefined
      ) {
        throw new McpConfigurationError(
          `${where} is an @McpExtensionMethod() of a class without @McpExtensionProvider(): add the extension's decorator to the class`,
        );
      }
      return undefined;
    }
    if (found.length > 1) {
      throw new McpConfigurationError(MULTIPLE_DECORATORS(where));
    }
    return { handler: found[0], where };
  }

  private async explore(
    wrapper: HostWrapper,
    isController: boolean,
    instance: Record<string, unknown>,
    methodName: string,
    { handler, where }: { handler: McpHandlerMetadata; where: string },
  ): Promise<void> {
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
  }
}
