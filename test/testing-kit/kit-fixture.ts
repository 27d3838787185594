/**
 * The small application the testing kit's specs drive: a DTO tool, a guarded tool, a scoped
 * tool, an elicitation, a sampling question, a long call with progress and logs, task tools,
 * a resource (subscribable), a template with completion and a prompt, served with bearer
 * tokens (anonymous callers allowed, so that a guard or a scope refuses them).
 */
import {
  type CanActivate,
  type DynamicModule,
  type ExecutionContext,
  Injectable,
  Module,
  UseGuards,
} from '@nestjs/common';
import { IsInt, IsString } from 'class-validator';
import { z } from 'zod';
import {
  McpCtx,
  type McpCallContext,
  McpExecutionContext,
  McpModule,
  type McpModuleExtras,
  type McpModuleOptions,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpScopes,
  McpTool,
  McpTypedTool,
  McpArgs,
} from 'nest-mcp';

export const KIT_SERVER = { name: 'kit-fixture', version: '0.0.1' } as const;

/** The bearer tokens: a reader (no scope) and an admin (`admin`, role=admin). */
export const KIT_TOKENS = { reader: 'reader-token', admin: 'admin-token' } as const;

export class RepeatDto {
  @IsString()
  text!: string;

  @IsInt()
  times!: number;
}

/** Lets through only the admin principal (its claim role=admin). */
@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const principal = McpExecutionContext.create(context).getContext().principal;
    return principal?.claims?.role === 'admin';
  }
}

/** Records what the blocking tool saw, so that a test can see its signal abort on the server. */
@Injectable()
export class KitProbe {
  readonly aborted: string[] = [];
  readonly started: string[] = [];
}

/** The input of the typed tool: a zod schema with a default. */
export const SearchInput = z.object({ query: z.string().min(1), limit: z.number().int().default(2) });

@Injectable()
export class KitTools {
  constructor(private readonly probe: KitProbe) {}

  @McpTypedTool({ description: 'Searches (a typed tool)', input: SearchInput })
  search(args: { query: string; limit: number }): string {
    return `${args.query} x${args.limit}`;
  }

  @McpTool({ description: 'Repeats a text (a class-validator DTO)', input: RepeatDto })
  repeat(@McpArgs() args: RepeatDto): string {
    return args.text.repeat(args.times);
  }

  @McpTool({ description: 'Fails as a tool error (isError)' })
  broken(): never {
    throw new Error('broken on purpose');
  }

  @McpTool({ description: 'Only for the admin (a guard)' })
  @UseGuards(AdminGuard)
  guarded(): string {
    return 'guarded ok';
  }

  @McpTool({ description: 'Only with the admin scope' })
  @McpScopes('admin')
  scoped(): string {
    return 'scoped ok';
  }

  @McpTool({ description: 'Asks for a name', input: { type: 'object', properties: {} } })
  async ask_name(@McpCtx() ctx: McpCallContext): Promise<string> {
    const answer = await ctx.elicit({
      mode: 'form',
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `action=${answer.action} name=${String(answer.content?.name ?? '-')}`;
  }

  @McpTool({ description: "Asks the client's model", input: { type: 'object', properties: {} } })
  async ask_model(@McpCtx() ctx: McpCallContext): Promise<string> {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      maxTokens: 10,
    });
    const content = answer.content as { text?: string };
    return `model=${answer.model} text=${String(content.text)}`;
  }

  @McpTool({ description: 'Lists the roots', input: { type: 'object', properties: {} } })
  async ask_roots(@McpCtx() ctx: McpCallContext): Promise<string> {
    const { roots } = await ctx.listRoots();
    return roots.map((root) => root.uri).join(',');
  }

  @McpTool({ description: 'Reports progress and logs, then answers' })
  async chatty(@McpCtx() ctx: McpCallContext): Promise<string> {
    ctx.progress(1, 2, 'half');
    ctx.log('info', 'working', 'kit');
    await new Promise((resolve) => setImmediate(resolve));
    ctx.progress(2, 2, 'done');
    return 'chatted';
  }

  @McpTool({
    description: 'Reports progress, then runs until aborted',
    input: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  })
  async block(@McpArgs('label') label: string, @McpCtx() ctx: McpCallContext): Promise<string> {
    this.probe.started.push(label);
    ctx.progress(1, undefined, 'started');
    await new Promise<void>((resolve) => {
      const limit = setTimeout(resolve, 5000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(limit);
        this.probe.aborted.push(label);
        resolve();
      });
    });
    return ctx.signal.aborted ? 'aborted' : 'not aborted';
  }
}

/** The text of the greeting resource (a provider a test can override). */
@Injectable()
export class KitGreeting {
  text(): string {
    return 'hello';
  }
}

const TASK_INPUT = {
  type: 'object',
  properties: { label: { type: 'string' }, ms: { type: 'integer' } },
  required: ['label'],
} as const;

/** Sleeps `ms` unless the call is aborted first; true when it was. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Tools that run only as tasks. */
@Injectable()
export class KitTasks {
  constructor(private readonly probe: KitProbe) {}

  @McpTool({ description: 'Sleeps `ms` as a task', input: TASK_INPUT, taskSupport: 'required' })
  async slow_task(@McpArgs() args: { label: string; ms?: number }, @McpCtx() ctx: McpCallContext): Promise<string> {
    this.probe.started.push(args.label);
    if (await sleep(args.ms ?? 50, ctx.signal)) {
      this.probe.aborted.push(args.label);
    }
    return `done ${args.label}`;
  }

  @McpTool({ description: 'Sleeps `ms`, then asks a name, as a task', input: TASK_INPUT, taskSupport: 'required' })
  async ask_in_task(@McpArgs() args: { label: string; ms?: number }, @McpCtx() ctx: McpCallContext): Promise<string> {
    // Past the inline window, so that the question is the task's (not an input_required round).
    await sleep(args.ms ?? 0, ctx.signal);
    const answer = await ctx.elicit({
      mode: 'form',
      message: `Name for ${args.label}?`,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `task ${args.label} name=${String(answer.content?.name ?? '-')}`;
  }
}

@Injectable()
export class KitResources {
  constructor(private readonly greetingText: KitGreeting) {}

  @McpResource({ uri: 'kit://greeting', name: 'greeting', mimeType: 'text/plain' })
  greeting(): string {
    return this.greetingText.text();
  }

  @McpResourceTemplate({
    uriTemplate: 'kit://colors/{name}',
    name: 'color',
    mimeType: 'text/plain',
    complete: { name: 'completeColor' },
  })
  color(@McpArgs('name') name: string): string {
    return `color ${name}`;
  }

  completeColor(prefix: string): string[] {
    return ['red', 'green', 'grey'].filter((color) => color.startsWith(prefix));
  }

  @McpPrompt({ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] })
  greet(@McpArgs('who') who: string) {
    return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Greet ${who}` } }] };
  }
}

@Module({})
export class KitFixtureModule {
  static forRoot(options: Partial<McpModuleOptions> = {}, extras: McpModuleExtras = {}): DynamicModule {
    return {
      module: KitFixtureModule,
      imports: [
        McpModule.forRoot({
          ...KIT_SERVER,
          auth: {
            bearer: {
              tokens: {
                [KIT_TOKENS.reader]: { id: 'reader', scopes: [], claims: { role: 'reader' } },
                [KIT_TOKENS.admin]: { id: 'admin', scopes: ['admin'], claims: { role: 'admin' } },
              },
            },
          },
          ...options,
          ...extras,
        }),
      ],
      providers: [KitProbe, KitGreeting, KitTools, KitTasks, KitResources],
    };
  }
}
