/**
 * What one server's module adds to the providers every server has (`MCP_PROVIDERS`): its
 * identity, and its public services under the tokens the application reaches them by.
 */
import type { DynamicModule, Provider } from '@nestjs/common';
import { MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { namedStoreProviders, STORE_TOKENS } from '../stores/store.providers';
import { McpDefaultServerModule } from './mcp-default-server.module';
import type { McpServerIdentity } from '../identity/server-identity';
import { namedServerToken } from '../identity/named-token';
import { McpServerDirectory } from './mcp-server-directory';
import { SERVER_SERVICES } from './server-tokens';

/** The providers, exports and imports of one server's module. */
export function serverModuleParts(
  identity: McpServerIdentity,
): Required<Pick<DynamicModule, 'providers' | 'exports' | 'imports'>> {
  const providers: Provider[] = [{ provide: MCP_SERVER_IDENTITY, useValue: identity }];
  const exports: Array<string | symbol | DynamicModule['module']> = [...STORE_TOKENS];
  for (const { type, own } of SERVER_SERVICES) {
    // By name, for every server; the default one also by class (see McpDefaultServerModule).
    // A server that is not global is the default of the modules that import it: it offers the
    // classes itself.
    const byName = namedServerToken(identity.name, type.name);
    providers.push({ provide: byName, useExisting: own });
    exports.push(byName);
    if (identity.global) {
      providers.push({
        provide: `nest-mcp:publish:${type.name}`,
        useFactory: (directory: McpServerDirectory, instance: unknown) => directory.publish(identity, type, instance),
        inject: [McpServerDirectory, own],
      });
    } else {
      providers.push({ provide: type, useExisting: own });
      exports.push(type);
    }
  }
  for (const store of namedStoreProviders(identity.name)) {
    providers.push(store);
    exports.push(store.provide);
  }
  return { providers, exports, imports: identity.global ? [McpDefaultServerModule] : [] };
}
