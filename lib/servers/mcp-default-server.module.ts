import { Global, Module } from '@nestjs/common';
import { McpServerDirectory } from './mcp-server-directory';
import { SERVER_SERVICES } from './server-tokens';

/**
 * The public services by class (`McpRegistry`, `McpNotifier`...): the default server's. Every
 * global server imports this one module (Nest keeps a single instance of it) and publishes its
 * services to the directory; the class tokens are registered here alone, so that
 * `app.get(McpRegistry)` and injection agree on the server.
 */
@Global()
@Module({
  providers: [
    McpServerDirectory,
    ...SERVER_SERVICES.map(({ type }) => ({
      provide: type,
      useFactory: (directory: McpServerDirectory) => directory.defaultOf(type),
      inject: [McpServerDirectory],
    })),
  ],
  exports: [McpServerDirectory, ...SERVER_SERVICES.map(({ type }) => type)],
})
export class McpDefaultServerModule {}
