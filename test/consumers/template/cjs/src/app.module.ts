import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { ADMIN_KEY, AdminToolsModule } from './admin.tools';
import { MathToolsModule } from './math.tools';

/**
 * Two servers: the default one at /mcp (the first forRoot) with the math tools, and admin at
 * /admin behind an API key with its own tools. Each discovers only the modules it includes.
 */
@Module({
  imports: [
    MathToolsModule,
    AdminToolsModule,
    McpModule.forRoot({ name: 'consumer-cjs', version: '1.0.0', include: [MathToolsModule], console: true }),
    McpModule.forRoot({
      name: 'admin',
      version: '1.0.0',
      path: 'admin',
      include: [AdminToolsModule],
      auth: { apiKey: { keys: { [ADMIN_KEY]: { id: 'ops' } } } },
    }),
  ],
})
export class AppModule {}
