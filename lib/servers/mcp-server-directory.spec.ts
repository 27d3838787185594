import type { ModulesContainer } from '@nestjs/core';
import { MCP_SERVER_IDENTITY } from '../shared/mcp.constants';
import { McpServerDirectory } from './mcp-server-directory';
import { resolveServerIdentity, type McpServerIdentity } from '../identity/server-identity';

class Counter {
  count = 0;
  started = 0;
  onModuleInit(): void {
    this.started += 1;
  }
  add(): number {
    this.count += 1;
    return this.count;
  }
}

function container(...identities: McpServerIdentity[]): ModulesContainer {
  return new Map(
    identities.map((identity, index) => [
      String(index),
      { providers: new Map([[MCP_SERVER_IDENTITY, { instance: identity }]]) },
    ]),
  ) as unknown as ModulesContainer;
}

describe('McpServerDirectory', () => {
  const first = resolveServerIdentity({ name: 'first' }, { streamable: 'a' }, true, undefined);
  const second = resolveServerIdentity({ name: 'second' }, { streamable: 'b' }, true, undefined);

  it("hands out the default server's service, whoever publishes first", async () => {
    const directory = new McpServerDirectory(container(second, first));
    const pending = directory.defaultOf(Counter);
    const ofSecond = new Counter();
    const ofFirst = new Counter();
    directory.publish(second, Counter, ofSecond);
    directory.publish(first, Counter, ofFirst);
    const view = (await pending) as Counter;
    view.add();
    expect(ofFirst.count).toBe(1);
    expect(ofSecond.count).toBe(0);
  });

  it('hides the lifecycle hooks, and reads and writes reach the service itself', async () => {
    const directory = new McpServerDirectory(container(first));
    const service = new Counter();
    directory.publish(first, Counter, service);
    const view = (await directory.defaultOf(Counter)) as Counter;
    expect(view.onModuleInit).toBeUndefined();
    expect(view).toBeInstanceOf(Counter);
    expect(view.add()).toBe(1);
    view.count = 10;
    expect(service.count).toBe(10);
    service.onModuleInit();
    expect(view.started).toBe(1);
  });
});
