import { Injectable } from '@nestjs/common';
import {
  McpError,
  McpErrorCode,
  McpResource,
  McpResourceTemplate,
  McpArgs,
  McpCtx,
  type McpCallContext,
} from 'nest-mcp';
import { NotesService } from './notes.service';

@Injectable()
export class NotesResources {
  constructor(private readonly notes: NotesService) {}

  @McpResource({
    uri: 'notes://index',
    name: 'index',
    description: 'Every note, as JSON',
    mimeType: 'application/json',
  })
  index() {
    return { text: JSON.stringify(this.notes.list().map(({ id, title }) => ({ id, title }))) };
  }

  @McpResourceTemplate({
    uriTemplate: 'notes://{id}',
    name: 'note',
    description: 'One note, as Markdown',
    mimeType: 'text/markdown',
    complete: { id: 'completeId' },
  })
  note(@McpArgs('id') id: string, @McpCtx() ctx: McpCallContext) {
    const note = this.notes.get(id);
    if (note === undefined) {
      throw new McpError(
        ctx.era === 'modern' ? McpErrorCode.InvalidParams : McpErrorCode.ResourceNotFound,
        `No note ${id}`,
        {
          uri: ctx.name,
        },
      );
    }
    return `# ${note.title}\n\n${note.body}\n`;
  }

  /** Completes note ids (named in the template's `complete`). */
  completeId(prefix: string): string[] {
    return this.notes
      .list()
      .map((note) => note.id)
      .filter((id) => id.startsWith(prefix));
  }
}
