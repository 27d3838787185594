import 'reflect-metadata';
import { type INestApplication, Module, VersioningType } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpConfigurationError } from '../../errors/mcp-configuration.error';
import { McpModule } from '../../mcp.module';
import { getMcpEndpointPath } from './endpoint-path';

@Module({})
class FirstTools {}

@Module({})
class SecondTools {}

@Module({
  imports: [
    FirstTools,
    SecondTools,
    McpModule.forRoot({ name: 'first', version: '1.0.0', path: 'one', include: [FirstTools] }),
    McpModule.forRoot({ name: 'second', version: '1.0.0', path: '/two/mcp/', include: [SecondTools] }),
  ],
})
class TwoServers {}

async function appOf(module: new () => unknown): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [module] }).compile();
  return moduleRef.createNestApplication({ logger: false });
}

describe('getMcpEndpointPath', () => {
  let app: INestApplication;

  afterEach(async () => {
    await app.close();
  });

  it('is the mounted path of the default server, or of the one named, global prefix and URI version included', async () => {
    app = await appOf(TwoServers);
    app.setGlobalPrefix('api');
    app.enableVersioning({ type: VersioningType.URI, defaultVersion: '3' });
    await app.init();
    expect(getMcpEndpointPath(app)).toBe('/api/v3/one');
    expect(getMcpEndpointPath(app, 'first')).toBe('/api/v3/one');
    expect(getMcpEndpointPath(app, 'second')).toBe('/api/v3/two/mcp');
  });

  it('is the global prefix joined to the path option before init', async () => {
    app = await appOf(TwoServers);
    app.setGlobalPrefix('/api/');
    expect(getMcpEndpointPath(app, 'second')).toBe('/api/two/mcp');
  });

  it('throws a configuration error naming the servers for an unknown name', async () => {
    app = await appOf(TwoServers);
    expect(() => getMcpEndpointPath(app, 'third')).toThrow(
      new McpConfigurationError('The application has no MCP server named "third" (its servers: "first", "second").'),
    );
  });

  it('throws a configuration error in an application without a server', async () => {
    app = await appOf(FirstTools);
    expect(() => getMcpEndpointPath(app)).toThrow(McpConfigurationError);
  });
});
