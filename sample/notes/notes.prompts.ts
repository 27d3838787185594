import { Injectable } from '@nestjs/common';
import { McpPrompt, McpArgs } from 'nest-mcp';
import { NotesService } from './notes.service';

@Injectable()
export class NotesPrompts {
  constructor(private readonly notes: NotesService) {}

  /** Completes note ids for the `id` argument. */
  completeId(prefix: string): string[] {
    return this.notes
      .list()
      .map((note) => note.id)
      .filter((id) => id.startsWith(prefix));
  }

  @McpPrompt({
    name: 'summarize_note',
    description: 'Asks the model to summarize one note',
    arguments: [
      {
        name: 'id',
        description: 'The note to summarize',
        required: true,
        complete: 'completeId',
      },
      {
        name: 'style',
        description: 'bullet or prose',
        complete: (value) => ['bullet', 'prose'].filter((s) => s.startsWith(value)),
      },
    ],
  })
  summarize(@McpArgs() args: { id: string; style?: string }) {
    const note = this.notes.get(args.id);
    const text = note === undefined ? `There is no note ${args.id}.` : `# ${note.title}\n\n${note.body}`;
    return {
      messages: [
        {
          role: 'user' as const,
          content: { type: 'text' as const, text: `Summarize this note as ${args.style ?? 'prose'}:\n\n${text}` },
        },
      ],
    };
  }
}
