import 'reflect-metadata';
import { runMcpStdio } from 'nest-mcp/stdio';
import { AppModule } from './app.module';

/**
 * The sample MCP server over stdio: JSON-RPC on stdin and stdout, logs on stderr. An MCP
 * client spawns it (`npm run --silent start:stdio`) and the process ends when the client
 * closes its stdin.
 */
void runMcpStdio(AppModule);
