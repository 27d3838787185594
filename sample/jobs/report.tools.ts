import { Injectable } from '@nestjs/common';
import { setTimeout as pause } from 'node:timers/promises';
import { z } from 'zod';
import { McpCtx, type McpCallContext, McpTool, McpArgs } from 'nest-mcp';

/** How long one section takes: long enough that a report outlives the inline window. */
export const SECTION_MS = 300;

const ReportInput = z.object({
  sections: z.number().int().min(1).max(20).describe('How many sections the report has (about 0.3 s each)'),
});

@Injectable()
export class ReportTools {
  /**
   * A long job that may run as a task: clients that take tasks get a handle at once (2025-11-25)
   * or after the inline window (2026-07-28) and poll it; other clients wait for the report in
   * place. The handler reads the same either way.
   */
  @McpTool({
    title: 'Build a report',
    description: 'Builds a report of 1 to 20 sections, about 0.3 s each; runs as a task for clients that take tasks',
    input: ReportInput,
    output: {
      type: 'object',
      properties: {
        sections: { type: 'integer' },
        titles: { type: 'array', items: { type: 'string' } },
        taskId: { type: ['string', 'null'] },
      },
      required: ['sections', 'titles', 'taskId'],
    },
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
  })
  async build_report(@McpArgs() args: z.infer<typeof ReportInput>, @McpCtx() ctx: McpCallContext) {
    const total = args.sections;
    const titles: string[] = [];
    for (let section = 1; section <= total; section += 1) {
      // A cancelled task, a client that went away or an expired task aborts the signal: stop
      // between sections rather than build a report no one will read. The pause rejects as soon
      // as the signal aborts.
      await pause(SECTION_MS, undefined, { signal: ctx.signal });
      titles.push(`Section ${section}`);
      // A legacy task sends these as notifications tagged with the task; a modern task keeps the
      // latest progress message as its statusMessage, which `tasks/get` shows.
      ctx.progress(section, total, `Section ${section} of ${total}`);
      ctx.log('info', { section, of: total }, 'reports');
    }
    return {
      content: [{ type: 'text' as const, text: `Report ready: ${total} section${total === 1 ? '' : 's'}` }],
      structuredContent: { sections: total, titles, taskId: ctx.taskId ?? null },
    };
  }
}
