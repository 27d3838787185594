import { Injectable, NotFoundException, UseGuards, UseInterceptors } from '@nestjs/common';
import { z } from 'zod';
import { McpCtx, type McpCallContext, McpTool, McpArgs } from 'nest-mcp';
import { EditorGuard } from '../common/editor.guard';
import { TimingInterceptor } from '../common/timing.interceptor';
import { CreateNoteDto } from './dto/create-note.dto';
import { NotesService } from './notes.service';
import { NOTE_CARD_URI } from './notes.resources';

const SearchInput = z.object({
  query: z.string().min(1).describe('Text to look for in titles and bodies'),
  tag: z.string().optional().describe('Only notes with this tag'),
});

@Injectable()
export class NotesTools {
  constructor(private readonly notes: NotesService) {}

  /**
   * Input from a class-validator DTO. Its MCP App (ui://notes/note-card, see NotesResources) shows
   * the new note as a card in hosts that render apps; the text stays the answer for the others.
   */
  @McpTool({
    description: 'Creates a note',
    input: CreateNoteDto,
    annotations: { destructiveHint: false },
    ui: { resourceUri: NOTE_CARD_URI },
  })
  create_note(@McpArgs() args: CreateNoteDto) {
    const note = this.notes.create(args.title, args.body, args.tags);
    return `Created note ${note.id}: ${note.title}`;
  }

  /** Input from a zod schema (Standard Schema); reports progress as it scans. */
  @McpTool({ description: 'Searches notes by text and tag', input: SearchInput, annotations: { readOnlyHint: true } })
  @UseInterceptors(TimingInterceptor)
  async search_notes(@McpArgs() args: z.infer<typeof SearchInput>, @McpCtx() ctx: McpCallContext) {
    const all = this.notes.list();
    ctx.progress(0, all.length);
    const found = this.notes.search(args.query, args.tag);
    ctx.progress(all.length, all.length);
    ctx.log('info', { query: args.query, found: found.length }, 'notes');
    return found.map((note) => `${note.id}: ${note.title}`).join('\n') || 'No notes found';
  }

  /** Plain JSON Schema input and an output schema: the result is structured content. */
  @McpTool({
    title: 'Note statistics',
    description: 'Counts notes, optionally with a tag',
    input: { type: 'object', properties: { tag: { type: 'string' } }, additionalProperties: false },
    output: {
      type: 'object',
      properties: { total: { type: 'integer' }, tag: { type: ['string', 'null'] } },
      required: ['total', 'tag'],
    },
  })
  note_stats(@McpArgs('tag') tag?: string) {
    const notes = this.notes.list().filter((note) => tag === undefined || note.tags.includes(tag));
    return { total: notes.length, tag: tag ?? null };
  }

  /** Guarded: only callers the EditorGuard admits may delete; asks the user to confirm when it can. */
  @McpTool({
    description: 'Deletes a note (editors only: send the header x-notes-role: editor)',
    input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { destructiveHint: true },
  })
  @UseGuards(EditorGuard)
  async delete_note(@McpArgs('id') id: string, @McpCtx() ctx: McpCallContext) {
    // Clients that can ask their user are asked to confirm: a request on the call's stream in the
    // legacy era, an `input_required` round in the modern era. The handler reads the same way.
    if (ctx.clientCapabilities.elicitation !== undefined) {
      const answer = await ctx.elicit({
        message: `Delete note ${id}? This cannot be undone.`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Delete it' } },
          required: ['confirm'],
        },
      });
      if (answer.action !== 'accept' || answer.content?.confirm !== true) {
        return `Kept note ${id}`;
      }
    }
    if (!this.notes.delete(id)) {
      throw new NotFoundException(`No note ${id}`);
    }
    return `Deleted note ${id}`;
  }
}
