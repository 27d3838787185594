import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  UseGuards,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { McpRoutes } from 'nest-mcp';
import { EditorGuard } from '../common/editor.guard';
import { CreateNoteDto } from './dto/create-note.dto';
import { type Note, NotesService } from './notes.service';

/**
 * The notes as a REST API at /api/notes, each route also an MCP tool (`@McpRoutes()`):
 * `notes_list`, `notes_get`, `notes_create`, `notes_remove`, beside the hand-written tools of
 * NotesTools and on the same NotesService. A tool call is an HTTP request to the route, so the
 * ValidationPipe and the EditorGuard run for it as for curl.
 */
@Controller('api/notes')
@McpRoutes()
// Here, not global: the MCP tools validate their own input, and a global pipe would run on them too.
@UsePipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true }))
export class NotesController {
  constructor(private readonly notes: NotesService) {}

  @Get()
  list(@Query('tag') tag?: string): { notes: Note[] } {
    return { notes: this.notes.list().filter((note) => tag === undefined || note.tags.includes(tag)) };
  }

  @Get(':id')
  get(@Param('id') id: string): Note {
    const note = this.notes.get(id);
    if (note === undefined) {
      throw new NotFoundException(`No note ${id}`);
    }
    return note;
  }

  @Post()
  create(@Body() dto: CreateNoteDto): Note {
    return this.notes.create(dto.title, dto.body, dto.tags);
  }

  /** Editors only, like delete_note: the tool's call carries `x-notes-role` (routes.forwardHeaders). */
  @Delete(':id')
  @HttpCode(204)
  @UseGuards(EditorGuard)
  remove(@Param('id') id: string): void {
    if (!this.notes.delete(id)) {
      throw new NotFoundException(`No note ${id}`);
    }
  }
}
