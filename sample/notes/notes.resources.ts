import { Injectable } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  McpError,
  McpErrorCode,
  McpResource,
  McpResourceTemplate,
  McpUiResource,
  McpArgs,
  McpCtx,
  type McpCallContext,
} from 'nest-mcp';
import { NotesService } from './notes.service';

/** The sample's MCP App: the card create_note links to (`_meta.ui.resourceUri`). */
export const NOTE_CARD_URI = 'ui://notes/note-card';

/** The view, one self-contained HTML file built from sample/notes/view by scripts/build-browser-bundles.mjs. */
const NOTE_CARD_FILE = join(__dirname, 'view', 'dist', 'note-card.html');

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

  /**
   * The note card (sample/notes/view): no external origin declared, so hosts run it under the
   * Apps extension's restrictive default policy.
   */
  @McpUiResource({
    uri: NOTE_CARD_URI,
    name: 'note-card',
    description: 'The card create_note shows its note in (an MCP App)',
    prefersBorder: true,
  })
  noteCard(): Promise<string> {
    return readFile(NOTE_CARD_FILE, 'utf8');
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
