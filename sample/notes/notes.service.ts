import { Injectable } from '@nestjs/common';
import { McpNotifier } from 'nest-mcp';

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
}

/** An in-memory notes store. */
@Injectable()
export class NotesService {
  private readonly notes = new Map<string, Note>();
  private next = 1;

  constructor(private readonly notifier: McpNotifier) {
    this.create('Welcome', 'This server keeps notes in memory.', ['intro']);
    this.create('Shopping', 'Milk, eggs, bread.', ['home']);
  }

  create(title: string, body: string, tags?: string[] | null): Note {
    // Stored as a list of its own, whatever the caller passed: every reader relies on it.
    const note: Note = {
      id: String(this.next++),
      title,
      body,
      tags: Array.isArray(tags) ? [...tags] : [],
      createdAt: new Date().toISOString(),
    };
    this.notes.set(note.id, note);
    void this.notifier.resourceUpdated('notes://index');
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  list(): Note[] {
    return [...this.notes.values()];
  }

  delete(id: string): boolean {
    const deleted = this.notes.delete(id);
    if (deleted) {
      void this.notifier.resourceUpdated('notes://index');
    }
    return deleted;
  }

  search(query: string, tag?: string): Note[] {
    const needle = query.toLowerCase();
    return this.list().filter(
      (note) =>
        (note.title.toLowerCase().includes(needle) || note.body.toLowerCase().includes(needle)) &&
        (tag === undefined || note.tags.includes(tag)),
    );
  }
}
