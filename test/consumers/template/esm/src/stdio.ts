import 'reflect-metadata';
import { runMcpStdio } from 'nest-mcp/stdio';
import { AppModule } from './app.module.js';

/** The same app served over stdio: JSON-RPC on stdin/stdout, logs on stderr. */
void runMcpStdio(AppModule, { logger: ['error', 'warn'] });
