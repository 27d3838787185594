import 'reflect-metadata';
import { runMcpStdio } from 'nest-mcp/stdio';
import { AppModule } from './app.module';

/** The admin server of the same app over stdio (stdio.ts serves the default one). */
void runMcpStdio(AppModule, { server: 'admin', logger: ['error', 'warn'] });
