import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { McpExecutionContext } from 'nest-mcp';

/** Admits MCP calls whose HTTP request carries `x-notes-role: editor`. */
@Injectable()
export class EditorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!McpExecutionContext.isMcp(context)) {
      return true;
    }
    const request = McpExecutionContext.create(context).getRequest<{ headers?: Record<string, unknown> }>();
    return request?.headers?.['x-notes-role'] === 'editor';
  }
}
