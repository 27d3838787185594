/** The `stores` section of the module options, resolved (`MCP_STORE_SETTINGS`). */
import type { McpStoreOptions } from '../interfaces/mcp-store-options.interface';
import { fail, section } from '../shared/option-checks';

/** The stores of the application's own, checked; a kind absent here is built in. */
export type ResolvedStoreOptions = Readonly<McpStoreOptions>;

/** The methods each kind of store must have, as its interface declares them. */
const METHODS: { readonly [Kind in keyof Required<McpStoreOptions>]: readonly string[] } = {
  sessions: [
    'create',
    'get',
    'update',
    'touch',
    'delete',
    'count',
    'idleSince',
    'subscribe',
    'unsubscribe',
    'subscribers',
  ],
  replay: ['append', 'after', 'clear'],
  tasks: ['create', 'get', 'update', 'delete', 'list', 'countLive', 'due'],
  bus: ['publish', 'subscribe'],
};

/**
 * Validates `stores`; `undefined` when it is not set.
 * @param withRedis whether `redis` is set: its stores, link and bus go together, so a store of
 *   the application's own beside them would split the state the instances share.
 */
export function resolveStoreSettings(
  options: McpStoreOptions | undefined,
  withRedis: boolean,
): ResolvedStoreOptions | undefined {
  if (options === undefined) {
    return undefined;
  }
  const stores = section(options, 'stores');
  for (const [kind, store] of Object.entries(stores) as [keyof McpStoreOptions, unknown][]) {
    const methods = METHODS[kind];
    if (methods === undefined) {
      fail('stores', `unknown store "${kind}"; known: ${Object.keys(METHODS).join(', ')}`);
    }
    if (store === undefined) {
      continue;
    }
    const missing =
      typeof store === 'object' && store !== null
        ? methods.filter((method) => typeof (store as Record<string, unknown>)[method] !== 'function')
        : methods;
    if (missing.length > 0) {
      fail(`stores.${kind}`, `must implement ${methods.join(', ')} (missing ${missing.join(', ')})`);
    }
  }
  const given = Object.values(stores).some((store) => store !== undefined);
  if (given && withRedis) {
    fail(
      'stores',
      'cannot be combined with redis: redis brings the stores, the bus and the link its instances share; use one or the other',
    );
  }
  return stores;
}
