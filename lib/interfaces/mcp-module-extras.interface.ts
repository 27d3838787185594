import type { Type } from '@nestjs/common';

/**
 * The built-in MCP console (see `McpModuleExtras.console`): a page served by the application,
 * a browser MCP client of this server's own endpoint.
 *
 * @publicApi
 */
export interface McpConsoleOptions {
  /**
   * The path of the console page (global prefix and versioning apply); its files are served
   * under `<path>/assets/`.
   * @default '<path>/console' (the Streamable HTTP endpoint's path + `/console`)
   */
  path?: string;
  /**
   * Serve the console although `NODE_ENV` is `production`: without it such an application
   * refuses to start, so that a console turned on for development never ships by accident.
   * @default false
   */
  allowInProduction?: boolean;
}

/**
 * Options that shape the module graph, known synchronously in `forRoot` and `forRootAsync`.
 *
 * @publicApi
 */
export interface McpModuleExtras {
  /**
   * The name of the server among the application's servers: its tokens
   * (`getMcpToken(McpRegistry, name)`, `@InjectMcp(McpRegistry, name)`...), the `servers` of a handler's
   * decorator, and its Redis key prefix (`mcp:<name>:`) go by it. In `forRoot` it is the
   * `name` clients see in `serverInfo`; give it beside the factory in `forRootAsync`.
   * @default 'default' (forRootAsync without one)
   */
  name?: string;
  /**
   * The modules whose providers and controllers this server discovers handlers on (their own,
   * not those of the modules they import), as `GraphQLModule` does. A handler in an included
   * module belongs only to the servers that include it (or to those its decorator's `servers`
   * names). Without it the server takes the rest of the application: the handlers of the modules
   * no server includes, that do not name their servers.
   * @example include: [AdminModule]
   */
  include?: Type[];
  /**
   * Register the module globally, so `McpRegistry` and the services can be injected anywhere
   * (for the first of several servers; the others by their tokens, see `name`).
   * @default true
   */
  isGlobal?: boolean;
  /**
   * The path of the Streamable HTTP endpoint (global prefix and versioning apply).
   * @default 'mcp'
   */
  path?: string;
  /**
   * Serves the simple POST-only endpoint at this path (global prefix and versioning apply): JSON
   * in, JSON out, no sessions, no streams, both eras. Off unless set.
   * @example 'rpc'
   */
  simpleHttpPath?: string;
  /**
   * Serves the 2024-11-05 HTTP+SSE pair: `GET <ssePath>` opens a session and its event stream,
   * whose `endpoint` event names `<sseMessagesPath>?sessionId=...` for the client's POSTs. Off
   * unless both paths are set.
   * @example 'sse'
   */
  ssePath?: string;
  /**
   * The POST path of the 2024-11-05 HTTP+SSE pair (see `ssePath`).
   * @example 'messages'
   */
  sseMessagesPath?: string;
  /**
   * Class decorators applied to every endpoint controller the module mounts (and to the
   * console's, when `console` is on). The application's global guards, interceptors, pipes and
   * filters never run on the endpoints, which the module serves itself (they run once around
   * each MCP call): guards given here with `UseGuards(...)` do, once per HTTP request, before the
   * module's own checks (`isMcpEndpoint(context)` is true for them), and a refusal is a JSON-RPC
   * answer (-32004). Interceptors, pipes and filters here are refused at startup; metadata
   * (`SetMetadata(...)`, `SkipThrottle()`) is harmless. The console is an ordinary route, which
   * global guards wrap: `[Public()]` opens it to a global guard with a `@Public()` opt-out.
   * @example endpointDecorators: [UseGuards(IpAllowListGuard)]
   * @default [] (none)
   */
  endpointDecorators?: ClassDecorator[];
  /**
   * Serves the MCP console: a page to see and try this server's tools, resources, prompts and
   * tasks from a browser, as a client of the server's own Streamable HTTP endpoint (so the
   * endpoint's authentication, guards and checks apply to everything it does). `true` serves it
   * at `<path>/console`; `{ path }` elsewhere. Global prefix and URI versioning apply. An extra,
   * not an option: its routes are part of the module graph. With `NODE_ENV=production` the
   * application refuses to start unless `allowInProduction` is set.
   * @default false (off)
   * @example console: process.env.MCP_CONSOLE === '1'
   */
  console?: boolean | McpConsoleOptions;
}
