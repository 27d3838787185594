import type { Type } from '@nestjs/common';
import { ContextIdFactory, type ExternalContextCreator, type ModuleRef } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { mcpHandlerArgs, McpParamsFactory } from '../context/mcp-params.factory';
import { MCP_CONTEXT_TYPE } from '../shared/mcp.constants';
import type { McpCallContext } from '../protocol/calls/call-context';
import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import { canUseDirectCall } from './direct-call';
import type { McpEnhancerResolver } from './enhancer-resolver';
import { translateHttpException } from './http-exception.translator';
import type { McpInvokedKind, McpMetadataAccessor, McpParamsLayout } from './mcp-metadata.accessor';
import { globalEnhancersOf, hasGlobalEnhancers, type HostWrapper } from '../shared/nest-internals';
import { createQuietContextCreator } from './quiet-context-creator';
import { createShadowHost } from './shadow-host.factory';
import { isThenable } from '../protocol/messages/thenables';

/** Runs one handler for one call. */
/**
 * Calls a decorated method: its value, or a promise of it when the method (or the pipeline) is
 * asynchronous. It may throw synchronously, as a handler of the registry may.
 */
export type McpInvoker = (args: unknown, call: McpCallContext, native: McpNativeExchange | undefined) => unknown;

/** One decorated method, as the explorer found it. */
export interface McpHandlerTarget {
  readonly wrapper: HostWrapper;
  readonly isController: boolean;
  readonly instance: Record<string, unknown>;
  readonly methodName: string;
  readonly kind: McpInvokedKind;
  /** `Class.method`, for error messages. */
  readonly where: string;
}

type Method = (...args: unknown[]) => unknown;

/** How one call runs, before its result is settled and its HTTP exceptions are translated. */
type Run = (args: unknown, call: McpCallContext, native: McpNativeExchange | undefined) => unknown;

const PIPELINE = { guards: true, interceptors: true, filters: true };

/**
 * Builds the invokers of decorated methods: a direct call when nothing of the Nest pipeline
 * applies (see `canUseDirectCall`), else the method wrapped by Nest's `ExternalContextCreator`
 * (guards, interceptors, pipes, filters; context type `'mcp'`), once for a static provider, per
 * call for a request-scoped or transient one. Both map parameters with the one `McpParamsFactory`.
 */
export class McpHandlerFactory {
  private readonly paramsFactory = new McpParamsFactory();
  /** Nest's pipeline, minus its own log of unhandled errors: the engine logs them once, with the call. */
  private readonly pipeline: ExternalContextCreator;

  constructor(
    private readonly contextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    private readonly accessor: McpMetadataAccessor,
    private readonly enhancers: McpEnhancerResolver,
  ) {
    this.pipeline = createQuietContextCreator(contextCreator);
  }

  async create(target: McpHandlerTarget): Promise<McpInvoker> {
    const { wrapper, instance, methodName } = target;
    const method = instance[methodName] as Method;
    const hostClass = instance.constructor as Type;
    const layout = this.accessor.getParams(hostClass, methodName);
    const isStatic = wrapper.isDependencyTreeStatic();
    const config = globalEnhancersOf(this.contextCreator);
    const direct = canUseDirectCall({
      staticClassProvider: !this.isShadowed(target) && isStatic,
      globalEnhancers: config === undefined ? undefined : hasGlobalEnhancers(config),
      boundEnhancers: this.accessor.hasBoundEnhancers(hostClass, method),
      params: layout,
    });
    const run = direct
      ? this.directCall(instance, method, layout!)
      : isStatic
        ? await this.staticCall(target, layout)
        : this.scopedCall(target, layout);
    return (args, call, native) => {
      let result: unknown;
      try {
        result = run(args, call, native);
      } catch (error) {
        throw translateHttpException(error, target.kind, call.era);
      }
      // A method that answers synchronously is answered without a turn of the microtask queue;
      // a primitive (most tools' text) is not even asked whether it is a promise or an observable.
      return (typeof result === 'object' || typeof result === 'function') &&
        result !== null &&
        (isThenable(result) || isObservable(result))
        ? settled(result, target, call)
        : result;
    };
  }

  /** The method bound to its instance, its parameters filled by the params factory. */
  private directCall(instance: object, method: Method, layout: McpParamsLayout): Run {
    const { params } = layout;
    const length = params.reduce((max, param) => Math.max(max, param.index + 1), 0);
    return (args, call, native) => {
      const handlerArgs = mcpHandlerArgs(args, call, native);
      const values: unknown[] = new Array(length);
      for (const param of params) {
        values[param.index] = this.paramsFactory.exchangeKeyForValue(param.type, param.data, handlerArgs);
      }
      return method.apply(instance, values);
    };
  }

  /** A static provider's handler, wrapped in the pipeline once, here. */
  private async staticCall(target: McpHandlerTarget, layout: McpParamsLayout | undefined): Promise<Run> {
    const run = this.wrap(target, await this.hostOf(target, target.instance, layout), layout);
    return (args, call, native) => run(...mcpHandlerArgs(args, call, native));
  }

  /**
   * A request-scoped (or transient) provider's handler: a fresh instance per call, resolved for a
   * context whose `REQUEST` is the transport request, and wrapped for that context.
   */
  private scopedCall(target: McpHandlerTarget, layout: McpParamsLayout | undefined): Run {
    return async (args, call, native) => {
      // Without an HTTP request (stdio) the call gets a request object of its own, so that
      // every call still has its own DI context.
      const scopeRequest = (native?.request ?? {
        mcp: { requestId: call.requestId, transport: call.transport },
      }) as Record<string, unknown>;
      const contextId = ContextIdFactory.getByRequest(scopeRequest);
      this.moduleRef.registerRequestByContextId(scopeRequest, contextId);
      const scoped = await this.moduleRef.resolve<unknown, Record<string, unknown>>(
        target.wrapper.token as Type,
        contextId,
        { strict: false },
      );
      const run = this.wrap(target, await this.hostOf(target, scoped, layout), layout, contextId);
      return run(...mcpHandlerArgs(args, call, native));
    };
  }

  private wrap(
    target: McpHandlerTarget,
    host: Record<string, unknown>,
    layout: McpParamsLayout | undefined,
    contextId?: ReturnType<typeof ContextIdFactory.create>,
  ): (...args: unknown[]) => Promise<unknown> {
    return this.pipeline.create(
      host,
      host[target.methodName] as Method,
      target.methodName,
      layout?.metadataKey,
      this.paramsFactory,
      contextId,
      // A shadow host is no provider: it must not be taken for one by its inquirer id.
      this.isShadowed(target) ? undefined : target.wrapper.id,
      PIPELINE,
      MCP_CONTEXT_TYPE,
    ) as (...args: unknown[]) => Promise<unknown>;
  }

  /**
   * Controllers and factory or value providers run on a shadow host (see shadow-host.factory.ts)
   * so that their class-based enhancers are not lost.
   */
  private isShadowed(target: McpHandlerTarget): boolean {
    return target.isController || target.wrapper.isNotMetatype;
  }

  private async hostOf(
    target: McpHandlerTarget,
    instance: Record<string, unknown>,
    layout: McpParamsLayout | undefined,
  ): Promise<Record<string, unknown>> {
    if (!this.isShadowed(target)) {
      return instance;
    }
    const resolve = this.enhancers.forHost(
      target.wrapper,
      (enhancer) =>
        `${target.where} is declared on a controller or a factory provider; its request-scoped enhancer ${enhancer.name} cannot be bound there. Move the handler to a class provider.`,
    );
    return createShadowHost(instance, target.methodName, layout?.metadataKey, resolve);
  }
}

/** The value of an asynchronous call: a promise's, or an Observable's last; HTTP exceptions translated. */
async function settled(result: unknown, target: McpHandlerTarget, call: McpCallContext): Promise<unknown> {
  try {
    const value = isObservable(result) ? result : await result;
    return isObservable(value) ? await lastValueFrom(value) : value;
  } catch (error) {
    throw translateHttpException(error, target.kind, call.era);
  }
}
