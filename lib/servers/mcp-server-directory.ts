import { Injectable, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { defaultServerOf, serverIdentities } from '../identity/mcp-servers';
import type { McpServerIdentity } from '../identity/server-identity';

/** The lifecycle hooks Nest calls on a provider's instance. */
const LIFECYCLE_HOOKS = new Set<string | symbol>([
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/**
 * The instance seen without its hooks. Everything else reaches the instance itself: methods run
 * with the view as `this`, whose reads and writes go to the instance.
 */
function withoutLifecycleHooks(instance: unknown): unknown {
  if (typeof instance !== 'object' || instance === null) {
    return instance;
  }
  return new Proxy(instance, {
    get: (target, key) => (LIFECYCLE_HOOKS.has(key) ? undefined : Reflect.get(target, key, target)),
  });
}

/**
 * Hands the default server's public services to their class tokens (`McpDefaultServerModule`).
 * Which server is the default is known once every module is scanned, and no sooner, so each
 * global server publishes its services here as Nest creates them, and the class tokens wait for
 * the default's.
 */
@Injectable()
export class McpServerDirectory {
  private readonly waiting = new Map<Type, { promise: Promise<unknown>; resolve: (instance: unknown) => void }>();
  private defaultServer: McpServerIdentity | undefined | null = null;

  constructor(private readonly modules: ModulesContainer) {}

  /** A server's service, created: kept when the server is the default one. */
  publish(identity: McpServerIdentity, type: Type, instance: unknown): void {
    if (identity === this.theDefault()) {
      this.slot(type).resolve(instance);
    }
  }

  /**
   * The default server's service, once created, as its class token holds it: without its
   * lifecycle hooks. Nest calls the hooks of every provider's instance, and this one is the
   * server's own provider's too: run twice, and earlier than the server's other parts (this
   * module is deeper in the graph), they would start the service twice and stop it too soon.
   */
  defaultOf(type: Type): Promise<unknown> {
    return this.slot(type).promise.then(withoutLifecycleHooks);
  }

  private theDefault(): McpServerIdentity | undefined {
    // Every module is scanned before any provider is created: the answer holds from the first call.
    this.defaultServer ??= defaultServerOf(serverIdentities(this.modules));
    return this.defaultServer;
  }

  private slot(type: Type): { promise: Promise<unknown>; resolve: (instance: unknown) => void } {
    let slot = this.waiting.get(type);
    if (slot === undefined) {
      let resolve!: (instance: unknown) => void;
      const promise = new Promise<unknown>((settle) => (resolve = settle));
      slot = { promise, resolve };
      this.waiting.set(type, slot);
    }
    return slot;
  }
}
