/**
 * The extension providers of one server (`@McpExtensionProvider`), found from the classes of the
 * application's modules when the server's providers are made: before its engine, whose method
 * table takes their methods at construction. Their instances do not exist yet: each method is
 * served through a slot the explorer fills with its invoker (through the Nest pipeline) at
 * `onModuleInit`, before any request can arrive.
 */
import type { Type } from '@nestjs/common';
import { MetadataScanner, type ModulesContainer, Reflector } from '@nestjs/core';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpServerIdentity } from '../identity/server-identity';
import { serverTakes } from '../identity/server-identity';
import { serverIdentities } from '../identity/mcp-servers';
import type { ExtensionMethod } from '../protocol/calls/extension-method';
import { extensionProblem, type McpExtension } from '../protocol/extensions/extensions';
import { extensionMethodProblem } from '../protocol/extension-methods';
import { MCP_TASKS_EXTENSION } from '../protocol/tasks/task-mode';
import type { HostWrapper } from '../shared/nest-internals';
import type { McpInvoker } from './mcp-handler.factory';
import { McpMetadataAccessor } from './mcp-metadata.accessor';

/** One method of a provider, waiting for its invoker. */
export interface FoundExtensionMethod {
  readonly methodName: string;
  /** `Class.method`, for error messages. */
  readonly where: string;
  /** Serves the method with `invoke` from now on. */
  readonly bind: (invoke: McpInvoker) => void;
}

/** One extension provider the server takes. */
export interface FoundExtensionProvider {
  readonly wrapper: HostWrapper;
  readonly extension: McpExtension;
  /** The class's name, for error messages. */
  readonly className: string;
  readonly methods: readonly FoundExtensionMethod[];
}

/** What the server's engine and explorer need of its extension providers. */
export interface McpExtensionProviders {
  /** Every extension of the server: those of `forRoot({ extensions })`, then the providers'. */
  readonly extensions: readonly McpExtension[];
  /** The methods the providers add, each served through its slot. */
  readonly methods: readonly ExtensionMethod[];
  readonly providers: readonly FoundExtensionProvider[];
}

type Method = (...args: never[]) => unknown;

/**
 * Finds the extension providers `identity` takes (those of the modules its `include` names, as
 * for tools), and checks them with the options' extensions: a malformed declaration, an
 * identifier declared twice, or a method that is malformed, a built-in one or another
 * extension's stops the startup with an `McpConfigurationError`.
 */
export function findExtensionProviders(
  declared: readonly McpExtension[],
  identity: McpServerIdentity,
  modules: ModulesContainer,
): McpExtensionProviders {
  const accessor = new McpMetadataAccessor(new Reflector());
  const servers = serverIdentities(modules);
  const providers: FoundExtensionProvider[] = [];
  const methods: ExtensionMethod[] = [];
  const owners: string[] = [];
  const seen = new Map<string, string>(declared.map((extension) => [extension.id, 'forRoot({ extensions })']));
  seen.set(MCP_TASKS_EXTENSION, 'the module itself');
  for (const module of modules.values()) {
    for (const wrapper of module.providers.values()) {
      const hostClass = wrapper.metatype as Type | null;
      if (wrapper.isAlias || wrapper.isNotMetatype || typeof hostClass !== 'function') {
        continue;
      }
      const extension = accessor.getExtensionProvider(hostClass);
      if (extension === undefined || !serverTakes(identity, servers, module.metatype, undefined)) {
        continue;
      }
      const className = hostClass.name;
      const problem = extensionProblem([extension]);
      if (problem !== undefined) {
        throw new McpConfigurationError(
          `@McpExtensionProvider() of ${className}: ${problem.at.replace(/^\[0\]\.?/, '') || 'options'} ${problem.reason}`,
        );
      }
      const earlier = seen.get(extension.id);
      if (earlier !== undefined) {
        throw new McpConfigurationError(
          `@McpExtensionProvider() of ${className}: the extension "${extension.id}" is declared twice (also by ${earlier})`,
        );
      }
      seen.set(extension.id, className);
      const found = methodsOf(accessor, hostClass, extension);
      methods.push(...found.map(({ method }) => method));
      owners.push(...found.map(({ where }) => where));
      providers.push({ wrapper, extension, className, methods: found.map(({ slot }) => slot) });
    }
  }
  const extensions = [...declared, ...providers.map(({ extension }) => extension)];
  const problem = extensionMethodProblem(extensions, methods);
  if (problem !== undefined) {
    const where = owners[Number(/\d+/.exec(problem.at)?.[0])];
    throw new McpConfigurationError(`@McpExtensionMethod() of ${where}: ${problem.reason}`);
  }
  return { extensions, methods, providers };
}

/** The `@McpExtensionMethod()` methods of a provider's class, each with its slot. */
function methodsOf(
  accessor: McpMetadataAccessor,
  hostClass: Type,
  extension: McpExtension,
): Array<{ method: ExtensionMethod; where: string; slot: FoundExtensionMethod }> {
  const prototype = hostClass.prototype as Record<string, unknown>;
  const found: Array<{ method: ExtensionMethod; where: string; slot: FoundExtensionMethod }> = [];
  for (const methodName of new MetadataScanner().getAllMethodNames(prototype)) {
    const member = prototype[methodName];
    if (typeof member !== 'function') {
      continue;
    }
    const metadata = accessor.getExtensionMethod(member as Method);
    if (metadata === undefined) {
      continue;
    }
    const where = `${hostClass.name}.${methodName}`;
    let invoke: McpInvoker | undefined;
    const scopes = accessor.getScopes(hostClass, member as Method);
    const method: ExtensionMethod = {
      method: metadata.method,
      extension: extension.id,
      eras: metadata.eras,
      nameParam: metadata.nameParam,
      cacheable: metadata.cacheable,
      requiresClientSupport: metadata.requiresClientSupport,
      scopes: scopes.length === 0 ? undefined : scopes,
      handler: (params, call, native) => {
        if (invoke === undefined) {
          // Requests are served only once the application is initialised: never reached.
          throw new Error(`${where} was called before the application was initialised`);
        }
        return invoke(params, call, native);
      },
    };
    found.push({
      method,
      where,
      slot: {
        methodName,
        where,
        bind: (bound) => {
          invoke = bound;
        },
      },
    });
  }
  return found;
}
