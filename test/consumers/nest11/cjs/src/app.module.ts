import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp';
import { MathTools } from './math.tools';

@Module({
  imports: [McpModule.forRoot({ name: 'consumer-cjs', version: '1.0.0' })],
  providers: [MathTools],
})
export class AppModule {}
