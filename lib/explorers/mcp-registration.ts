import type { McpAccessDefinition, McpCompletionSource } from '../interfaces/mcp-definitions.interface';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpCompletionHandler } from '../protocol/calls/catalog';
import type { McpRegistry } from '../registry/mcp-registry.service';
import type { McpInvoker } from './mcp-handler.factory';
import type { McpHandlerMetadata } from './mcp-metadata.accessor';

/** One decorated method, ready to register. */
export interface McpRegistration {
  readonly handler: McpHandlerMetadata;
  readonly methodName: string;
  readonly instance: Record<string, unknown>;
  readonly invoke: McpInvoker;
  readonly access: McpAccessDefinition;
  /** `Class.method`, the source the registry names in its errors. */
  readonly where: string;
}

/**
 * Adds a decorated method to the registry as its kind of entry: the decorator's options, the
 * method name as the default name, the access rules and the invoker, with each kind's arguments
 * passed to the one invoker (a resource reads with `{ uri }`, a template with its variables).
 */
export function registerHandler(registry: McpRegistry, registration: McpRegistration): void {
  const { handler, methodName, invoke, access, where } = registration;
  switch (handler.kind) {
    case 'tool': {
      const tool = handler.options;
      registry.addTool({ ...tool, ...access, name: tool.name ?? methodName, handler: invoke }, where);
      return;
    }
    case 'resource': {
      const resource = handler.options;
      registry.addResource(
        {
          ...resource,
          ...access,
          name: resource.name ?? methodName,
          handler: (call, native) => invoke({ uri: call.name }, call, native),
        },
        where,
      );
      return;
    }
    case 'ui resource': {
      const view = handler.options;
      registry.addUiResource(
        {
          ...view,
          ...access,
          name: view.name ?? methodName,
          handler: (call, native) => invoke({ uri: call.name }, call, native),
        },
        where,
      );
      return;
    }
    case 'resource template': {
      const template = handler.options;
      const complete: Record<string, McpCompletionHandler> = {};
      for (const [variable, source] of Object.entries(template.complete ?? {})) {
        complete[variable] = completion(registration, source);
      }
      registry.addResourceTemplate(
        {
          ...template,
          ...access,
          complete,
          name: template.name ?? methodName,
          handler: (_uri, variables, call, native) => invoke(variables, call, native),
        },
        where,
      );
      return;
    }
    case 'prompt': {
      const prompt = handler.options;
      registry.addPrompt(
        {
          ...prompt,
          ...access,
          arguments: prompt.arguments?.map((argument) => ({
            ...argument,
            complete: argument.complete === undefined ? undefined : completion(registration, argument.complete),
          })),
          name: prompt.name ?? methodName,
          handler: invoke,
        },
        where,
      );
      return;
    }
  }
}

/** A completion given as a function, or as the name of a method of the same instance. */
function completion({ instance, where }: McpRegistration, source: McpCompletionSource): McpCompletionHandler {
  if (typeof source === 'function') {
    return source;
  }
  const method = instance[source];
  if (typeof method !== 'function') {
    throw new McpConfigurationError(`${where} names the completion method "${source}", which its class does not have`);
  }
  return (value, context) => (method as McpCompletionHandler).call(instance, value, context);
}
