import { type CanActivate, HttpException, Injectable, Logger, type OnModuleInit, type Type } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, GUARDS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import {
  ContextIdFactory,
  DiscoveryService,
  ExternalContextCreator,
  MetadataScanner,
  ModuleRef,
  Reflector,
} from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import {
  MCP_CONTEXT_TYPE,
  MCP_PROMPT_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_SCOPES_METADATA,
  MCP_TOOL_METADATA,
  MCP_VISIBILITY_GUARD_METADATA,
  McpParamType,
} from '../mcp.constants';
import type { McpAccessDefinition } from '../interfaces/mcp-definitions.interface';
import { McpRegistry } from '../registry/mcp-registry.service';
import { NATIVE_EXCHANGE, type NativeExchange } from '../protocol/engine';
import type { McpCallContext } from '../protocol/call-context';
import type { CompletionHandler } from '../protocol/catalog';
import type {
  McpCompletionSource,
  McpPromptOptions,
  McpResourceOptions,
  McpResourceTemplateOptions,
  McpToolOptions,
} from '../interfaces/mcp-definitions.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { MULTIPLE_DECORATORS } from '../mcp.messages';
import { translateHttpException, type HandlerKind } from './http-exception.translator';
import { createQuietContextCreator } from './quiet-context-creator';
import { createShadowHost, ENHANCER_KEYS, type EnhancerResolver } from './shadow-host.factory';

type InstanceWrapper = ReturnType<DiscoveryService['getProviders']>[number];
type Invoker = (args: unknown, context: McpCallContext) => Promise<unknown>;

const KINDS: ReadonlyArray<{ kind: HandlerKind; key: string }> = [
  { kind: 'tool', key: MCP_TOOL_METADATA },
  { kind: 'resource', key: MCP_RESOURCE_METADATA },
  { kind: 'resource template', key: MCP_RESOURCE_TEMPLATE_METADATA },
  { kind: 'prompt', key: MCP_PROMPT_METADATA },
];

const PIPELINE = { guards: true, interceptors: true, filters: true };

/** The part of Nest's ApplicationConfig that says which enhancers apply to every handler. */
interface GlobalEnhancers {
  getGlobalGuards(): unknown[];
  getGlobalInterceptors(): unknown[];
  getGlobalPipes(): unknown[];
  getGlobalFilters(): unknown[];
  getGlobalRequestGuards(): unknown[];
  getGlobalRequestInterceptors(): unknown[];
  getGlobalRequestPipes(): unknown[];
  getGlobalRequestFilters(): unknown[];
}

function hasEntries(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

function hasGlobalEnhancers(config: GlobalEnhancers): boolean {
  return [
    config.getGlobalGuards(),
    config.getGlobalInterceptors(),
    config.getGlobalPipes(),
    config.getGlobalFilters(),
    config.getGlobalRequestGuards(),
    config.getGlobalRequestInterceptors(),
    config.getGlobalRequestPipes(),
    config.getGlobalRequestFilters(),
  ].some(hasEntries);
}

/** The call's arguments, or one property of them (`@ToolArgs('name')`). */
function argsValue(args: unknown, data: unknown): unknown {
  return typeof data === 'string' && typeof args === 'object' && args !== null
    ? (args as Record<string, unknown>)[data]
    : args;
}

/**
 * Maps the parameter types of `@ToolArgs()`, `@McpCtx()` and `@McpRequest()` to values. The
 * arguments of an MCP call are `[request, response, args, context]`.
 */
class McpParamsFactory {
  exchangeKeyForValue(type: number, data: unknown, args: unknown[]): unknown {
    switch (type) {
      case McpParamType.ARGS:
        return argsValue(args[2], data);
      case McpParamType.CONTEXT:
        return args[3];
      case McpParamType.REQUEST:
        return args[0];
      default:
        // Nest's HTTP parameter decorators (@Body, @Query...) have no meaning on an MCP call.
        return undefined;
    }
  }
}

/** The same mapping as `McpParamsFactory`, as a reader of one parameter for a direct call. */
function paramReader(
  type: number,
  data: unknown,
): (args: unknown, context: McpCallContext, native: NativeExchange | undefined) => unknown {
  switch (type) {
    case McpParamType.ARGS:
      return (args) => argsValue(args, data);
    case McpParamType.CONTEXT:
      return (_args, context) => context;
    case McpParamType.REQUEST:
      return (_args, _context, native) => native?.request;
    default:
      return () => undefined;
  }
}

/**
 * Finds `@McpTool`, `@McpResource`, `@McpResourceTemplate` and `@McpPrompt` methods on every
 * provider and controller, wraps each once with Nest's `ExternalContextCreator` (guards,
 * interceptors, pipes and filters, context type `'mcp'`) and registers it.
 */
@Injectable()
export class McpExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpExplorer');
  private readonly paramsFactory = new McpParamsFactory();
  /** Enhancer instances bound to shadow hosts, by class. */
  private readonly enhancers = new Map<Type, object>();
  /** Nest's pipeline, minus its own log of unhandled errors: the engine logs them once, with the call. */
  private readonly pipeline: ExternalContextCreator;
  private handlers: number | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly contextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    private readonly registry: McpRegistry,
  ) {
    this.pipeline = createQuietContextCreator(contextCreator);
  }

  /**
   * How many decorated handlers discovery registered, once it has finished; `undefined` before
   * (the health indicator reports the registry as not loaded until then).
   */
  get discovered(): number | undefined {
    return this.handlers;
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
    this.handlers = count;
    // The endpoints' startup lines (EndpointBanner) give the counts per kind.
    this.logger.debug(`Registered ${count} MCP handler${count === 1 ? '' : 's'}`);
  }

  private async explore(
    wrapper: InstanceWrapper,
    isController: boolean,
    instance: Record<string, unknown>,
    methodName: string,
  ): Promise<boolean> {
    const method = instance[methodName];
    if (typeof method !== 'function') {
      return false;
    }
    const found = KINDS.map(({ kind, key }) => ({ kind, options: this.reflector.get<unknown>(key, method) })).filter(
      ({ options }) => options !== undefined,
    );
    if (found.length === 0) {
      return false;
    }
    const className = (instance.constructor as Type | undefined)?.name ?? String(wrapper.name);
    const where = `${className}.${methodName}`;
    if (found.length > 1) {
      throw new McpConfigurationError(MULTIPLE_DECORATORS(where));
    }
    const { kind, options } = found[0];
    const invoke = await this.createInvoker(wrapper, isController, instance, methodName, kind, where);
    const access = await this.accessOf(wrapper, instance, methodName, where);
    try {
      this.register(kind, { ...(options as object), ...access }, methodName, invoke, instance, where);
    } catch (error) {
      if (error instanceof McpConfigurationError) {
        throw error.message.includes(where) ? error : new McpConfigurationError(`${error.message} (at ${where})`);
      }
      throw error;
    }
    return true;
  }

  /**
   * Who may call and see a handler: the scopes of `@McpScopes` on its class and method, and its
   * guards marked with `@McpVisibilityGuard()` (global, class and method guards), run in a list
   * context. A guard that refuses, or throws an HTTP exception, hides the handler.
   */
  private async accessOf(
    wrapper: InstanceWrapper,
    instance: Record<string, unknown>,
    methodName: string,
    where: string,
  ): Promise<McpAccessDefinition> {
    const method = instance[methodName] as (...args: unknown[]) => unknown;
    const hostClass = instance.constructor as Type;
    const scopes = [
      ...((Reflect.getMetadata(MCP_SCOPES_METADATA, hostClass) as string[] | undefined) ?? []),
      ...((Reflect.getMetadata(MCP_SCOPES_METADATA, method) as string[] | undefined) ?? []),
    ];
    const declared: unknown[] = [
      ...(this.globalEnhancers()?.getGlobalGuards() ?? []),
      ...((Reflect.getMetadata(GUARDS_METADATA, hostClass) as unknown[] | undefined) ?? []),
      ...((Reflect.getMetadata(GUARDS_METADATA, method) as unknown[] | undefined) ?? []),
    ];
    const marked = declared.filter(
      (guard) =>
        guard !== null &&
        guard !== undefined &&
        Reflect.getMetadata(MCP_VISIBILITY_GUARD_METADATA, typeof guard === 'function' ? guard : guard.constructor) ===
          true,
    );
    if (marked.length === 0) {
      return scopes.length === 0 ? {} : { scopes };
    }
    // A visibility guard runs for list requests, which belong to no handler's request scope.
    const resolve = this.enhancerResolver(
      wrapper,
      (guard) =>
        `${where}: the guard ${guard.name} decides visibility (@McpVisibilityGuard()), so it must not be request-scoped.`,
    );
    const guards = (await Promise.all(
      marked.map((guard) => (typeof guard === 'function' ? resolve(guard as Type) : guard)),
    )) as CanActivate[];
    const visible = async (call: McpCallContext): Promise<boolean> => {
      const native = (call as McpCallContext & { [NATIVE_EXCHANGE]?: NativeExchange })[NATIVE_EXCHANGE];
      const context = new ExecutionContextHost([native?.request, native?.response, undefined, call], hostClass, method);
      context.setType(MCP_CONTEXT_TYPE);
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
    };
    return scopes.length === 0 ? { visible } : { scopes, visible };
  }

  /** A completion given as a function, or as the name of a method of the same instance. */
  private completion(instance: Record<string, unknown>, source: McpCompletionSource, where: string): CompletionHandler {
    if (typeof source === 'function') {
      return source;
    }
    const method = instance[source];
    if (typeof method !== 'function') {
      throw new McpConfigurationError(
        `${where} names the completion method "${source}", which its class does not have`,
      );
    }
    return (value, context) => (method as CompletionHandler).call(instance, value, context);
  }

  private register(
    kind: HandlerKind,
    options: unknown,
    methodName: string,
    invoke: Invoker,
    instance: Record<string, unknown>,
    where: string,
  ): void {
    switch (kind) {
      case 'tool': {
        const tool = options as McpToolOptions;
        this.registry.addTool({ ...tool, name: tool.name ?? methodName, handler: invoke }, where);
        break;
      }
      case 'resource': {
        const resource = options as McpResourceOptions;
        this.registry.addResource(
          {
            ...resource,
            name: resource.name ?? methodName,
            handler: (context) => invoke({ uri: context.name }, context),
          },
          where,
        );
        break;
      }
      case 'resource template': {
        const template = options as McpResourceTemplateOptions;
        const complete: Record<string, CompletionHandler> = {};
        for (const [variable, source] of Object.entries(template.complete ?? {})) {
          complete[variable] = this.completion(instance, source, where);
        }
        this.registry.addResourceTemplate(
          {
            ...template,
            complete,
            name: template.name ?? methodName,
            handler: (_uri, variables, context) => invoke(variables, context),
          },
          where,
        );
        break;
      }
      case 'prompt': {
        const prompt = options as McpPromptOptions;
        this.registry.addPrompt(
          {
            ...prompt,
            arguments: prompt.arguments?.map((argument) => ({
              ...argument,
              complete:
                argument.complete === undefined ? undefined : this.completion(instance, argument.complete, where),
            })),
            name: prompt.name ?? methodName,
            handler: invoke,
          },
          where,
        );
        break;
      }
    }
  }

  /**
   * Builds the function that runs one handler through the Nest pipeline. Handlers of static
   * providers are wrapped once, here; handlers of request-scoped (or transient) providers get a
   * fresh instance per call, resolved for a context whose `REQUEST` is the transport request.
   * Controllers and factory or value providers run on a shadow host (see shadow-host.factory.ts)
   * so that their class-based enhancers are not lost.
   */
  private async createInvoker(
    wrapper: InstanceWrapper,
    isController: boolean,
    instance: Record<string, unknown>,
    methodName: string,
    kind: HandlerKind,
    where: string,
  ): Promise<Invoker> {
    this.ensureDefaultParams(instance, methodName);
    const shadowed = isController || wrapper.isNotMetatype;
    const resolveEnhancer = this.enhancerResolver(
      wrapper,
      (enhancer) =>
        `${where} is declared on a controller or a factory provider; its request-scoped enhancer ${enhancer.name} cannot be bound there. Move the handler to a class provider.`,
    );
    const hostOf = async (target: Record<string, unknown>) =>
      shadowed ? createShadowHost(target, methodName, resolveEnhancer) : target;
    const build = (target: Record<string, unknown>, contextId?: ReturnType<typeof ContextIdFactory.create>) =>
      this.pipeline.create(
        target,
        target[methodName] as (...args: unknown[]) => unknown,
        methodName,
        ROUTE_ARGS_METADATA,
        this.paramsFactory,
        contextId,
        // A shadow host is no provider: it must not be taken for one by its inquirer id.
        shadowed ? undefined : wrapper.id,
        PIPELINE,
        MCP_CONTEXT_TYPE,
      );
    const direct =
      shadowed || !wrapper.isDependencyTreeStatic() ? undefined : this.directCall(instance, methodName, kind);
    if (direct !== undefined) {
      return direct;
    }
    const staticRun = wrapper.isDependencyTreeStatic() ? build(await hostOf(instance)) : undefined;
    return async (args, context) => {
      const native = (context as McpCallContext & { [NATIVE_EXCHANGE]?: NativeExchange })[NATIVE_EXCHANGE];
      const request = native?.request;
      let run = staticRun;
      if (run === undefined) {
        // Without an HTTP request (stdio) the call gets a request object of its own, so that
        // every call still has its own DI context.
        const scopeRequest = (request ?? {
          mcp: { requestId: context.requestId, transport: context.transport },
        }) as Record<string, unknown>;
        const contextId = ContextIdFactory.getByRequest(scopeRequest);
        this.moduleRef.registerRequestByContextId(scopeRequest, contextId);
        const scoped = await this.moduleRef.resolve<unknown, Record<string, unknown>>(
          wrapper.token as Type,
          contextId,
          {
            strict: false,
          },
        );
        run = build(await hostOf(scoped), contextId);
      }
      try {
        const result: unknown = await run(request, native?.response, args, context);
        return isObservable(result) ? await lastValueFrom(result) : result;
      } catch (error) {
        throw translateHttpException(error, kind, context.era);
      }
    };
  }

  /** The application's global enhancers, as the pipeline itself reads them. */
  private globalEnhancers(): GlobalEnhancers | undefined {
    return (this.contextCreator as unknown as { container?: { applicationConfig?: GlobalEnhancers } }).container
      ?.applicationConfig;
  }

  /**
   * When nothing of the Nest pipeline applies to a handler (no guard, interceptor, pipe or filter,
   * global or bound, and only the MCP parameter decorators), the pipeline would only map the
   * parameters and call the method: do exactly that, without its layers of promises. Decided
   * once, here, from the same global enhancers the pipeline itself captures when it is built.
   */
  private directCall(instance: Record<string, unknown>, methodName: string, kind: HandlerKind): Invoker | undefined {
    const config = this.globalEnhancers();
    if (config === undefined || hasGlobalEnhancers(config)) {
      return undefined;
    }
    const method = instance[methodName] as (...args: unknown[]) => unknown;
    const hostClass = instance.constructor;
    if (
      ENHANCER_KEYS.some(
        (key) => hasEntries(Reflect.getMetadata(key, hostClass)) || hasEntries(Reflect.getMetadata(key, method)),
      )
    ) {
      return undefined;
    }
    const routeArgs = (Reflect.getMetadata(ROUTE_ARGS_METADATA, hostClass, methodName) ?? {}) as Record<
      string,
      { index: number; data?: unknown; pipes?: unknown[] }
    >;
    // One reader per parameter, built now: a call only fills the argument list.
    type Reader = (args: unknown, context: McpCallContext, native: NativeExchange | undefined) => unknown;
    const readers: Array<{ index: number; read: Reader }> = [];
    for (const [key, param] of Object.entries(routeArgs)) {
      if (key.includes(CUSTOM_ROUTE_ARGS_METADATA) || hasEntries(param.pipes)) {
        return undefined;
      }
      readers.push({ index: param.index, read: paramReader(Number(key.split(':')[0]), param.data) });
    }
    const length = readers.reduce((max, reader) => Math.max(max, reader.index + 1), 0);
    return async (args, context) => {
      const native = (context as McpCallContext & { [NATIVE_EXCHANGE]?: NativeExchange })[NATIVE_EXCHANGE];
      const values: unknown[] = new Array(length);
      for (const reader of readers) {
        values[reader.index] = reader.read(args, context, native);
      }
      try {
        const result = await method.apply(instance, values);
        return isObservable(result) ? await lastValueFrom(result) : result;
      } catch (error) {
        throw translateHttpException(error, kind, context.era);
      }
    };
  }

  /**
   * Resolves enhancer classes (for a shadow host, or the visibility guards of a handler): the
   * instance Nest made for the host's module when there is one, else a provider of that class
   * anywhere, else a new instance created with the host module's injector. Request-scoped
   * enhancers cannot be bound this way: `requestScoped` says why, for the startup error.
   */
  private enhancerResolver(wrapper: InstanceWrapper, requestScoped: (enhancer: Type) => string): EnhancerResolver {
    const host = wrapper.host;
    const hostRef = (host?.providers.get(ModuleRef)?.instance as ModuleRef | undefined) ?? this.moduleRef;
    return async (enhancer) => {
      let resolved = this.enhancers.get(enhancer);
      if (resolved !== undefined) {
        return resolved;
      }
      const injectable = host?.injectables.get(enhancer);
      if (injectable !== undefined && !injectable.isDependencyTreeStatic()) {
        throw new McpConfigurationError(requestScoped(enhancer));
      }
      if (injectable?.instance) {
        resolved = injectable.instance;
      } else {
        try {
          resolved = hostRef.get<object>(enhancer, { strict: false });
        } catch {
          resolved = await hostRef.create<object>(enhancer);
        }
      }
      this.enhancers.set(enhancer, resolved);
      return resolved;
    };
  }

  /**
   * A method without MCP parameter decorators receives `(args, ctx)`: record that layout so
   * that pipes (a global `ValidationPipe`) still see the arguments with their declared type.
   */
  private ensureDefaultParams(instance: Record<string, unknown>, methodName: string): void {
    const target = instance.constructor;
    if (Reflect.getMetadata(ROUTE_ARGS_METADATA, target, methodName) !== undefined) {
      return;
    }
    Reflect.defineMetadata(
      ROUTE_ARGS_METADATA,
      {
        [`${McpParamType.ARGS}:0`]: { index: 0, data: undefined, pipes: [] },
        [`${McpParamType.CONTEXT}:1`]: { index: 1, data: undefined, pipes: [] },
      },
      target,
      methodName,
    );
  }
}
