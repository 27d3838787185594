import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { McpModule } from '../mcp.module';
import { McpPrompt } from '../decorators/mcp-prompt.decorator';
import { McpResource } from '../decorators/mcp-resource.decorator';
import { McpTool } from '../decorators/mcp-tool.decorator';
import { McpRegistry } from '../registry/mcp-registry.service';
import { McpSessionService } from '../sessions/mcp-session.service';
import { HEALTH_DISCOVERY_PENDING } from '../shared/mcp.messages';
import { ANONYMOUS_PRINCIPAL } from '../protocol/calls/call-context';
import { McpHealthIndicator } from './mcp.health';

@Injectable()
class HealthFixture {
  @McpTool({ description: 'one' })
  first() {
    return 'first';
  }

  @McpTool({ description: 'two' })
  second() {
    return 'second';
  }

  @McpResource({ uri: 'health://readme' })
  readme() {
    return 'text';
  }

  @McpPrompt({ description: 'a prompt' })
  greet() {
    return 'hello';
  }
}

describe('McpHealthIndicator (memory stores)', () => {
  let moduleRef: TestingModule;
  let indicator: McpHealthIndicator;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'health', version: '1.0.0' })],
      providers: [HealthFixture],
    }).compile();
    // Discovery logs its count: not wanted in the test output.
    moduleRef.useLogger(false);
    indicator = moduleRef.get(McpHealthIndicator);
  });

  afterAll(async () => {
    await moduleRef?.close();
  });

  it('is down, with the reason, until discovery has finished', async () => {
    expect(await indicator.isHealthy()).toEqual({
      mcp: {
        status: 'down',
        message: `registry: ${HEALTH_DISCOVERY_PENDING}`,
        stores: { status: 'up', kind: 'memory', sessions: 0 },
        registry: {
          status: 'down',
          loaded: false,
          tools: 0,
          resources: 0,
          resourceTemplates: 0,
          prompts: 0,
          message: HEALTH_DISCOVERY_PENDING,
        },
      },
    });
  });

  it('is up once the module has started, with the counts of what was registered', async () => {
    await moduleRef.init();
    expect(await indicator.isHealthy()).toEqual({
      mcp: {
        status: 'up',
        stores: { status: 'up', kind: 'memory', sessions: 0 },
        registry: { status: 'up', loaded: true, tools: 2, resources: 1, resourceTemplates: 0, prompts: 1 },
      },
    });
  });

  it('reports under the key it is given', async () => {
    const result = await indicator.isHealthy('mcp-server');
    expect(Object.keys(result)).toEqual(['mcp-server']);
    expect(result['mcp-server'].status).toBe('up');
  });

  it('counts runtime registrations and open sessions as they come and go', async () => {
    const registry = moduleRef.get(McpRegistry);
    registry.addTool({ name: 'late', handler: () => 'late' });
    const sessions = moduleRef.get(McpSessionService);
    const session = await sessions.open(ANONYMOUS_PRINCIPAL);
    try {
      const { mcp } = await indicator.isHealthy();
      expect(mcp.registry.tools).toBe(3);
      expect(mcp.stores.sessions).toBe(1);
    } finally {
      await sessions.close(session.id);
      registry.removeTool('late');
    }
    const { mcp } = await indicator.isHealthy();
    expect(mcp.registry.tools).toBe(2);
    expect(mcp.stores.sessions).toBe(0);
  });
});
