import { Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { McpPromptMetadata } from '../decorators/mcp-prompt.decorator';
import { McpResourceMetadata, McpResourceTemplateMetadata } from '../decorators/mcp-resource.decorator';
import { McpScopesMetadata, McpVisibilityGuardMetadata } from '../decorators/mcp-scopes.decorator';
import { McpToolMetadata } from '../decorators/mcp-tool.decorator';
import {
  McpExtensionMethodMetadata,
  McpExtensionProviderMetadata,
  type McpExtensionMethodMetadataValue,
} from '../decorators/mcp-extension.decorator';
import type { McpExtensionProviderOptions } from '../interfaces/mcp-extension-options.interface';
import { McpUiResourceMetadata } from '../decorators/mcp-ui-resource.decorator';
import type {
  McpPromptOptions,
  McpResourceOptions,
  McpResourceTemplateOptions,
  McpToolOptions,
  McpUiResourceOptions,
} from '../interfaces/mcp-definitions.interface';
import { MCP_DEFAULT_PARAMS_METADATA } from '../shared/mcp.constants';
import {
  ENHANCER_KEYS,
  GUARDS_KEY,
  isCustomRouteArg,
  ROUTE_ARGS_METADATA,
  routeArgType,
  type RouteArgEntry,
} from '../shared/nest-internals';

/** What a decorated method is: the kind of handler and the options of its decorator. */
export type McpHandlerMetadata =
  | { readonly kind: 'tool'; readonly options: McpToolOptions }
  | { readonly kind: 'resource'; readonly options: McpResourceOptions }
  | { readonly kind: 'resource template'; readonly options: McpResourceTemplateOptions }
  | { readonly kind: 'ui resource'; readonly options: McpUiResourceOptions }
  | { readonly kind: 'prompt'; readonly options: McpPromptOptions };

export type McpHandlerKind = McpHandlerMetadata['kind'];

/** What the module invokes through the pipeline: a handler of the catalog, or an extension's method. */
export type McpInvokedKind = McpHandlerKind | 'extension method';

/** One parameter of a handler, as Nest's pipeline reads it. */
export interface McpParamMetadata {
  readonly index: number;
  /** The `McpParamType` (or Nest's own type); `NaN` for a custom parameter decorator. */
  readonly type: number;
  readonly data: unknown;
  /** Whether a custom parameter decorator (`createParamDecorator`) fills it. */
  readonly custom: boolean;
  /** Whether pipes are bound to this parameter (`@McpArgs(SomePipe)`). */
  readonly piped: boolean;
}

/** Where a handler's parameters are described, and how. */
export interface McpParamsLayout {
  /** The metadata key the pipeline reads them from (Nest's route arguments, or the default layout). */
  readonly metadataKey: string;
  readonly params: readonly McpParamMetadata[];
}

type Method = (...args: never[]) => unknown;

/**
 * Reads what the package's decorators and Nest's enhancer decorators recorded on handlers. The
 * only place that knows the metadata keys: the explorer and the factories ask it.
 */
@Injectable()
export class McpMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** Every MCP handler decorator on `method` (more than one is a configuration error). */
  getHandlers(method: Method): McpHandlerMetadata[] {
    const found: McpHandlerMetadata[] = [];
    const tool = this.reflector.get(McpToolMetadata, method);
    if (tool !== undefined) found.push({ kind: 'tool', options: tool });
    const resource = this.reflector.get(McpResourceMetadata, method);
    if (resource !== undefined) found.push({ kind: 'resource', options: resource });
    const template = this.reflector.get(McpResourceTemplateMetadata, method);
    if (template !== undefined) found.push({ kind: 'resource template', options: template });
    const view = this.reflector.get(McpUiResourceMetadata, method);
    if (view !== undefined) found.push({ kind: 'ui resource', options: view });
    const prompt = this.reflector.get(McpPromptMetadata, method);
    if (prompt !== undefined) found.push({ kind: 'prompt', options: prompt });
    return found;
  }

  /** The extension a class implements (`@McpExtensionProvider`), if any. */
  getExtensionProvider(hostClass: Type): McpExtensionProviderOptions | undefined {
    return this.reflector.get(McpExtensionProviderMetadata, hostClass);
  }

  /** The extension method `method` is (`@McpExtensionMethod`), if any. */
  getExtensionMethod(method: Method): McpExtensionMethodMetadataValue | undefined {
    return this.reflector.get(McpExtensionMethodMetadata, method);
  }

  /** The scopes of `@McpScopes` on the class, then on the method. */
  getScopes(hostClass: Type, method: Method): string[] {
    return [
      ...(this.reflector.get(McpScopesMetadata, hostClass) ?? []),
      ...(this.reflector.get(McpScopesMetadata, method) ?? []),
    ];
  }

  /** The guards of `@UseGuards` on the class, then on the method (classes or instances). */
  getGuards(hostClass: Type, method: Method): unknown[] {
    return [
      ...(this.reflector.get<unknown[] | undefined>(GUARDS_KEY, hostClass) ?? []),
      ...(this.reflector.get<unknown[] | undefined>(GUARDS_KEY, method) ?? []),
    ];
  }

  /** Whether a guard (class or instance) is marked with `@McpVisibilityGuard()`. */
  isVisibilityGuard(guard: unknown): boolean {
    if (guard === null || guard === undefined) {
      return false;
    }
    const guardClass = typeof guard === 'function' ? guard : guard.constructor;
    return this.reflector.get(McpVisibilityGuardMetadata, guardClass) === true;
  }

  /** Whether any guard, interceptor, pipe or filter is bound to the class or the method. */
  hasBoundEnhancers(hostClass: Type, method: Method): boolean {
    return ENHANCER_KEYS.some(
      (key) =>
        nonEmpty(this.reflector.get<unknown>(key, hostClass)) || nonEmpty(this.reflector.get<unknown>(key, method)),
    );
  }

  /**
   * The parameters of `hostClass[methodName]`: those its parameter decorators wrote, or else the
   * `(args, ctx)` layout its handler decorator recorded. `undefined` when there is neither (the
   * method was marked without the package's decorators).
   */
  getParams(hostClass: Type, methodName: string): McpParamsLayout | undefined {
    for (const metadataKey of [ROUTE_ARGS_METADATA, MCP_DEFAULT_PARAMS_METADATA]) {
      const entries = Reflect.getMetadata(metadataKey, hostClass, methodName) as
        Record<string, RouteArgEntry> | undefined;
      if (entries !== undefined) {
        const params = Object.entries(entries).map(([key, entry]) => ({
          index: entry.index,
          type: routeArgType(key),
          data: entry.data,
          custom: isCustomRouteArg(key),
          piped: nonEmpty(entry.pipes),
        }));
        return { metadataKey, params };
      }
    }
    return undefined;
  }
}

function nonEmpty(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}
