import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { McpExecutionContext } from 'nest-mcp';

/**
 * Admits MCP calls, and HTTP requests, that carry `x-notes-role: editor`. Route tools reach their
 * route as HTTP requests, with the header forwarded (`routes.forwardHeaders` in AppModule), so
 * delete_note, DELETE /api/notes/:id and its tool notes_remove are refused alike.
 */
@Injectable()
export class EditorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = McpExecutionContext.isMcp(context)
      ? McpExecutionContext.create(context).getRequest<{ headers?: Record<string, unknown> }>()
      : context.switchToHttp().getRequest<{ headers?: Record<string, unknown> }>();
    return request?.headers?.['x-notes-role'] === 'editor';
  }
}
