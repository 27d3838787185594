import { Inject, Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import {
  ApplicationConfig,
  DiscoveryService,
  HttpAdapterHost,
  MetadataScanner,
  ModuleRef,
  ModulesContainer,
  Reflector,
} from '@nestjs/core';
import type { Server } from 'node:http';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_TOOL_NAME } from '../shared/mcp.messages';
import { MCP_OWN_REGISTRY, MCP_ROUTE_SETTINGS, MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { McpRouteMetadata, McpRoutesMetadata } from '../decorators/mcp-route.decorator';
import { placementFault, serverTakes, type McpServerIdentity } from '../identity/server-identity';
import { defaultServerOf, serverIdentities } from '../identity/mcp-servers';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpSchemaCompiler } from '../schema/mcp-schema.compiler';
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';
import type { McpNativeExchange } from '../protocol/messages/native-exchange';
import type { McpCallContext } from '../protocol/calls/call-context.interface';
import type { CallToolResult } from '../protocol/messages/mcp-types';
import type { McpRouteOptions } from '../interfaces/mcp-route-options.interface';
import {
  controllerHostOf,
  controllerPathOf,
  convertLegacyRoutePath,
  declaredVersionsOf,
  isExcludedFromGlobalPrefix,
  modulePathOf,
  routeMappingOf,
  routeStatusOf,
} from '../shared/nest-internals';
import { fail } from '../shared/option-checks';
import { McpLogger } from '../telemetry/mcp.logger';
import { dispatchRoute } from './route-dispatch';
import { conformingResult, type OutputCheck } from './route-output';
import { routeResult } from './route-result';
import { confirmRoute, routeConfirmation, type RouteConfirmation } from './route-confirm';
import { routeLocation } from './route-location';
import { routeInputs, type RouteInputs } from './route-schema';
import { exposedBy } from './route-selection';
import type { RouteSettings } from './route-settings';
import { operationDescription, operationToolName, swaggerInputs, swaggerOutputSchema } from './route-swagger';
import { SwaggerSchemas } from './swagger-schema';
import { headerValue } from './route-headers';
import { routeHost } from './route-host';
import { RoutePathTemplate } from './route-path';
import { routeAnnotations, routePath, routeToolName, type RouteVerb } from './route-shape';
import { chosenVersion, versioningHeader, versionRequest } from './route-version';

/** One chosen route, ready to register. */
interface FoundRoute {
  readonly controller: Type;
  readonly methodName: string;
  readonly verb: RouteVerb;
  readonly path: string;
  /** The path as the router reads it (Express's or Fastify's syntax). */
  readonly template: RoutePathTemplate;
  /** The headers that name the route: its version's (HEADER, MEDIA_TYPE versioning) and its host. */
  readonly routeHeaders: Readonly<Record<string, string>>;
  /** The headers the call sets itself: never inputs. */
  readonly reservedHeaders: ReadonlySet<string>;
  readonly options: McpRouteOptions;
  readonly where: string;
  /** Chosen with a decorator (else selected by the server's `routes.expose` only). */
  readonly decorated: boolean;
}

/** The headers a proxy sets to name the client, passed on as they came. */
const CLIENT_ADDRESS_HEADERS = ['forwarded', 'x-forwarded-for'];

/** The address of the MCP caller's connection (Express's or Fastify's request), if it came over HTTP. */
function remoteAddressOf(native: McpNativeExchange | undefined): string | undefined {
  const request = native?.request as
    { socket?: { remoteAddress?: string }; raw?: { socket?: { remoteAddress?: string } } } | undefined;
  return (request?.raw?.socket ?? request?.socket)?.remoteAddress;
}

/** A call's arguments as an object (`{}` for anything else). */
function argumentValues(args: unknown): Record<string, unknown> {
  return (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
}

/** The `host` header of a controller served on one host only. */
function hostHeader(host: string | undefined): Record<string, string> {
  return host === undefined ? {} : { host };
}

/**
 * Finds the HTTP routes chosen with `@McpRoute()` / `@McpRoutes()` on the application's
 * controllers, or selected by the server's `routes.expose`, and registers each, on the servers
 * that take it (as handlers: `servers`, else `include`), as a tool whose call is an HTTP request
 * into the application's own server.
 */
@Injectable()
export class McpRouteExplorer implements OnModuleInit {
  private readonly logger = new McpLogger('McpRoutes');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly modules: ModulesContainer,
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly adapterHost: HttpAdapterHost,
    private readonly compiler: McpSchemaCompiler,
    @Inject(MCP_OWN_REGISTRY) private readonly registry: McpRegistry,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    @Inject(MCP_ROUTE_SETTINGS) private readonly settings: RouteSettings,
  ) {}

  onModuleInit(): void {
    const servers = serverIdentities(this.modules);
    const checksPlacement = defaultServerOf(servers) === this.identity;
    const unclaimed: string[] = [];
    const unlisted = new Set(this.settings.expose?.controllers);
    const hosts = [
      ...this.discovery.getControllers().map((wrapper) => ({ wrapper, isController: true })),
      ...this.discovery.getProviders().map((wrapper) => ({ wrapper, isController: false })),
    ];
    for (const { wrapper, isController } of hosts) {
      const { instance } = wrapper;
      if (!instance || typeof instance !== 'object' || wrapper.isAlias) {
        continue;
      }
      const controller = instance.constructor as Type;
      const prototype = Object.getPrototypeOf(instance) as object | null;
      if (!prototype) {
        continue;
      }
      const whole = isController ? this.reflector.get(McpRoutesMetadata, controller) : undefined;
      const module = wrapper.host?.metatype;
      if (isController && unlisted.delete(controller)) {
        this.assertTakes(controller, servers, module);
      }
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const found = this.routeOf(controller, methodName, isController, whole, module);
        if (found === undefined) {
          continue;
        }
        const fault =
          checksPlacement && found.decorated
            ? placementFault(found.where, servers, module, found.options.servers)
            : undefined;
        if (fault !== undefined) {
          unclaimed.push(fault);
        }
        if (serverTakes(this.identity, servers, module, found.options.servers)) {
          this.register(found);
        }
      }
    }
    if (unlisted.size > 0) {
      fail(
        'routes.expose.controllers',
        `of server "${this.identity.name}" names ${[...unlisted].map((controller) => controller.name).join(', ')}, ` +
          "which the application's modules do not declare as controllers",
      );
    }
    if (unclaimed.length > 0) {
      throw new McpConfigurationError(
        `No MCP server takes ${unclaimed.length === 1 ? 'this route' : 'these routes'}: ${unclaimed.join('; ')}. ` +
          "Add the controller's module to a server's include, or name an existing server in the decorator's servers.",
      );
    }
  }

  /** The validator of an output schema, compiled once. */
  private outputCheck(schema: Record<string, unknown>): OutputCheck {
    const compiled = this.compiler.compileJsonSchema(schema);
    return (value) => compiled.validate(value);
  }

  /**
   * A controller that `routes.expose.controllers` names must be one this server takes handlers
   * from: the option cannot cross another server's `include`.
   */
  private assertTakes(controller: Type, servers: readonly McpServerIdentity[], module: Type | undefined): void {
    if (!serverTakes(this.identity, servers, module, undefined)) {
      fail(
        'routes.expose.controllers',
        `of server "${this.identity.name}" names ${controller.name}, in ${module?.name ?? 'an unknown module'}, ` +
          "whose handlers go to other servers (their include names it): add it to this server's include",
      );
    }
  }

  /**
   * The route a method is, if chosen by a decorator or selected by `routes.expose`; a startup
   * error for `@McpRoute()` on a method without a verb.
   */
  private routeOf(
    controller: Type,
    methodName: string,
    isController: boolean,
    whole: McpRouteOptions | undefined,
    module: object | undefined,
  ): FoundRoute | undefined {
    const method = (controller.prototype as Record<string, unknown>)[methodName];
    if (typeof method !== 'function') {
      return undefined;
    }
    const own = this.reflector.get(McpRouteMetadata, method as () => unknown);
    const decorated = own !== undefined || whole !== undefined;
    if (!decorated && (!isController || this.settings.expose === undefined)) {
      return undefined;
    }
    const where = `${controller.name}.${methodName}`;
    const mapping = isController ? routeMappingOf(method) : undefined;
    if (mapping === undefined || mapping.verb === 'OTHER') {
      if (own === undefined) {
        return undefined;
      }
      throw new McpConfigurationError(
        `${where} has @McpRoute() but is not a controller route with @Get, @Post, @Put, @Patch or @Delete`,
      );
    }
    // A route of several paths (`@Get(['a', 'b'])`, `@Controller(['x', 'y'])`) is reached at
    // the first; of several versions, with the first (route-version.ts).
    const config = this.config();
    const versioning = config?.getVersioning();
    const declared = declaredVersionsOf(controller, method);
    const version = versionRequest(
      versioning,
      versioning === undefined
        ? undefined
        : chosenVersion(declared.method, declared.controller, versioning.defaultVersion),
      where,
    );
    const unprefixed = {
      modulePath: modulePathOf(module, this.modules.applicationId),
      controllerPath: controllerPathOf(controller),
      methodPath: mapping.path,
    };
    const excluded = isExcludedFromGlobalPrefix(
      config?.getGlobalPrefixOptions().exclude,
      routePath(unprefixed),
      mapping.verb,
    );
    const path = routePath({
      ...unprefixed,
      globalPrefix: excluded ? undefined : config?.getGlobalPrefix(),
      versioning: version.uriSegment === undefined ? undefined : { prefix: '', version: version.uriSegment },
    });
    const fastify = this.adapterHost.httpAdapter?.getType() === 'fastify';
    const template = fastify
      ? new RoutePathTemplate(path, 'find-my-way')
      : new RoutePathTemplate(convertLegacyRoutePath(path), 'path-to-regexp');
    if (!decorated && !exposedBy(this.settings.expose, { controller, method, path: template.path })) {
      return undefined;
    }
    return {
      controller,
      methodName,
      verb: mapping.verb,
      path: template.path,
      template,
      routeHeaders: { ...version.headers, ...hostHeader(routeHost(controllerHostOf(controller), where)) },
      reservedHeaders: new Set(
        [...this.settings.forwardHeaders, versioningHeader(versioning)].filter((name) => name !== undefined),
      ),
      options: { ...whole, ...own },
      where,
      decorated,
    };
  }

  private config(): ApplicationConfig | undefined {
    try {
      return this.moduleRef.get(ApplicationConfig, { strict: false });
    } catch {
      return undefined;
    }
  }

  private register(route: FoundRoute): void {
    const method = (route.controller.prototype as Record<string, object>)[route.methodName];
    const schemas = new SwaggerSchemas((dto) => this.compiler.compile(dto, 'input').jsonSchema);
    const inputs = swaggerInputs(
      routeInputs(
        route.controller,
        route.methodName,
        route.path,
        route.template.params,
        (dto) => schemas.dto(dto),
        route.where,
        route.reservedHeaders,
      ),
      route.controller,
      route.methodName,
      schemas,
      route.where,
    );
    const annotations = routeAnnotations(route.verb, route.options.annotations);
    const confirmation = routeConfirmation(
      route.options.confirm,
      annotations,
      this.settings.confirmDestructive,
      route.where,
    );
    const output = swaggerOutputSchema(
      route.controller,
      method,
      routeStatusOf(method) ?? (route.verb === 'POST' ? 201 : 200),
      new SwaggerSchemas((dto) => this.compiler.compile(dto, 'output').jsonSchema),
    );
    const operationId = route.options.name === undefined ? operationToolName(method) : undefined;
    const name = route.options.name ?? operationId ?? routeToolName(route.controller.name, route.methodName);
    const check = output === undefined ? undefined : this.outputCheck(output);
    try {
      this.registry.addTool(
        {
          name,
          description: route.options.description ?? operationDescription(method) ?? `${route.verb} ${route.path}`,
          annotations,
          input: inputs.jsonSchema,
          ...(output === undefined ? {} : { output }),
          handler: async (args: unknown, call: McpCallContext, native: McpNativeExchange | undefined) =>
            (await this.confirmation(route, confirmation, args, call)) ??
            this.call(route, name, inputs, check, args, call.signal, native),
        },
        route.where,
      );
    } catch (error) {
      if (
        error instanceof McpConfigurationError &&
        operationId !== undefined &&
        error.message === INVALID_TOOL_NAME(name)
      ) {
        throw new McpConfigurationError(
          `${route.where}: the operationId "${operationId}" of its @ApiOperation() is not a valid tool name ` +
            '(1 to 128 characters among A-Z, a-z, 0-9, "_", "-", "." and "/"): name the tool with @McpRoute({ name })',
        );
      }
      if (error instanceof McpConfigurationError && !error.message.includes(route.where)) {
        throw new McpConfigurationError(`${error.message} (at ${route.where})`);
      }
      throw error;
    }
  }

  /** The refusal to answer when the route asks first and the person does not say yes; else `undefined`. */
  private async confirmation(
    route: FoundRoute,
    confirmation: RouteConfirmation | undefined,
    args: unknown,
    call: McpCallContext,
  ): Promise<CallToolResult | undefined> {
    if (confirmation === undefined) {
      return undefined;
    }
    return confirmRoute(call, confirmation, {
      tool: call.name ?? route.where,
      request: `${route.verb} ${route.template.fill(argumentValues(args))}`,
      args,
    });
  }

  private async call(
    route: FoundRoute,
    name: string,
    inputs: RouteInputs,
    check: OutputCheck | undefined,
    args: unknown,
    signal: AbortSignal,
    native: McpNativeExchange | undefined,
  ): Promise<unknown> {
    const values = argumentValues(args);
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server === undefined || typeof server.emit !== 'function') {
      throw new McpError(McpErrorCode.InternalError, 'The application serves no HTTP routes');
    }
    const query = new URLSearchParams();
    for (const name of inputs.queryFields) {
      const value = values[name];
      for (const one of Array.isArray(value) ? value : [value]) {
        if (one !== undefined && one !== null) {
          query.append(name, typeof one === 'object' ? JSON.stringify(one) : String(one));
        }
      }
    }
    const search = query.toString();
    const headers: Record<string, string> = { ...route.routeHeaders };
    for (const name of inputs.headerFields) {
      if (values[name] !== undefined && values[name] !== null) {
        headers[name] = headerValue(name, values[name]);
      }
    }
    const target = route.template.fill(values) + (search === '' ? '' : `?${search}`);
    const location = routeLocation(route.verb, target, native);
    const response = await dispatchRoute(
      server,
      {
        method: route.verb,
        path: target,
        headers: { ...headers, ...this.forwarded(native) },
        body: inputs.body ? JSON.stringify(values.body ?? {}) : undefined,
        signal,
        remoteAddress: remoteAddressOf(native),
      },
      {
        maxResponseBytes: this.settings.maxResponseBytes,
        maxInlineBytes: this.settings.maxInlineBytes,
        linkable: location.link !== undefined,
      },
    );
    const result = routeResult(response, location);
    return check === undefined
      ? result
      : conformingResult(result, response.status, check, (why) =>
          this.logger.warn(`Route tool ${name} (${route.where}): the route's response ${why}`),
        );
  }

  /**
   * The credentials of the MCP request (over HTTP): `authorization` and the configured headers;
   * and the proxy headers that say who the caller is (`forwarded`, `x-forwarded-for`), so that a
   * route behind the application's trust-proxy setting finds the same client address as over HTTP.
   */
  private forwarded(native: McpNativeExchange | undefined): Record<string, string> {
    const headers = (native?.request as { headers?: Record<string, unknown> } | undefined)?.headers;
    const forwarded: Record<string, string> = {};
    if (headers === undefined || headers === null) {
      return forwarded;
    }
    for (const name of [...this.settings.forwardHeaders, ...CLIENT_ADDRESS_HEADERS]) {
      const value = headers[name];
      if (typeof value === 'string') {
        forwarded[name] = value;
      } else if (Array.isArray(value)) {
        forwarded[name] = value.join(', ');
      }
    }
    return forwarded;
  }
}
