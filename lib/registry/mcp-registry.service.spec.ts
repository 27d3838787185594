import { z } from 'zod';
import type { McpCallContext } from '../protocol/calls/call-context';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import type { McpToolDefinition } from '../interfaces/mcp-definitions.interface';
import { McpSchemaCompiler } from '../schema/mcp-schema.compiler';
import { McpRegistry, type McpRegistryChangeKind } from './mcp-registry.service';

// One compiler for the whole file: building its ajv instance is the slow part, and it holds no per-registry state.
const compiler = new McpSchemaCompiler();

function newRegistry(): McpRegistry {
  return new McpRegistry(compiler);
}

function toolDef(name: string, extra: Partial<McpToolDefinition> = {}): McpToolDefinition {
  return { name, handler: () => name, ...extra };
}

const noCall = {} as McpCallContext;

function expectConfigError(run: () => void, ...fragments: Array<string | RegExp>): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(McpConfigurationError);
  for (const fragment of fragments) {
    expect((thrown as Error).message).toMatch(fragment);
  }
}

describe('McpRegistry', () => {
  describe('tools', () => {
    it('registers a tool with its compiled schemas and metadata', async () => {
      const registry = newRegistry();
      registry.addTool(
        toolDef('search', {
          title: 'Search',
          description: 'Searches',
          input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
          output: { type: 'object', properties: { hits: { type: 'integer' } } },
          annotations: { readOnlyHint: true },
          _meta: { 'com.example/x': 1 },
          handler: (args: { q: string }) => `found ${args.q}`,
        }),
      );
      const entry = registry.getTool('search')!;
      expect(entry).toMatchObject({
        name: 'search',
        title: 'Search',
        description: 'Searches',
        annotations: { readOnlyHint: true },
        meta: { 'com.example/x': 1 },
        taskSupport: 'forbidden',
        paramHeaders: [],
      });
      expect(entry.input.jsonSchema).toMatchObject({ required: ['q'] });
      expect(entry.output?.jsonSchema).toMatchObject({ properties: { hits: { type: 'integer' } } });
      expect(await entry.input.validate({ q: 1 })).toMatchObject({ ok: false });
      expect(await entry.invoke({ q: 'mcp' }, noCall, undefined)).toBe('found mcp');
    });

    it('defaults the input schema to any object', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('plain'));
      expect(registry.getTool('plain')!.input.jsonSchema).toEqual({ type: 'object' });
      expect(registry.getTool('plain')!.output).toBeUndefined();
    });

    it.each([['a'], ['a'.repeat(128)], ['ns.tool/v1-x_y'], ['UPPER_lower.09']])('accepts the name %p', (name) => {
      const registry = newRegistry();
      registry.addTool(toolDef(name));
      expect(registry.getTool(name)).toBeDefined();
    });

    it.each([
      ['an empty name', ''],
      ['a space', 'has space'],
      ['129 characters', 'a'.repeat(129)],
      ['non-ASCII', 'météo'],
      ['a colon', 'a:b'],
      ['an at sign', '@tool'],
      ['not a string', 42 as unknown as string],
    ])('refuses %s', (_label, name) => {
      expectConfigError(() => newRegistry().addTool(toolDef(name)), 'Invalid MCP tool name');
    });

    it('refuses a duplicate name and keeps the first tool', async () => {
      const registry = newRegistry();
      registry.addTool(toolDef('dup', { handler: () => 'first' }));
      expectConfigError(
        () => registry.addTool(toolDef('dup', { handler: () => 'second' })),
        'Duplicate MCP tool "dup"',
      );
      expect(await registry.getTool('dup')!.invoke({}, noCall, undefined)).toBe('first');
      expect(registry.listTools()).toHaveLength(1);
    });

    it("refuses the search tool's name in search mode, naming the option", () => {
      const registry = new McpRegistry(compiler, { outputSchemaAnyRoot: true, searchToolName: 'search_tools' });
      expectConfigError(
        () => registry.addTool(toolDef('search_tools'), 'Tools.search'),
        'MCP tool "search_tools" (declared by Tools.search)',
        'toolSearch.name',
      );
      expect(registry.listTools()).toHaveLength(0);
      newRegistry().addTool(toolDef('search_tools'));
    });

    it.each([
      ['a string root', { type: 'string' }],
      ['an array root', { type: 'array' }],
    ])('refuses an input schema with %s', (_label, input) => {
      expectConfigError(() => newRegistry().addTool(toolDef('t', { input })), 'input schema', 'object schema');
    });

    it.each([
      ['a string root', { type: 'string' }],
      ['a null root', { type: 'null' }],
      ['a nullable string root', { type: ['string', 'null'] }],
    ])('refuses an output schema with %s, whatever the revisions: every call would fail', (_label, output) => {
      for (const outputSchemaAnyRoot of [true, false]) {
        expectConfigError(
          () => new McpRegistry(compiler, { outputSchemaAnyRoot }).addTool(toolDef('listing', { output })),
          'Invalid output schema of MCP tool "listing"',
          'the root cannot be a string or null schema',
        );
      }
    });

    it.each([
      ['an array root', { type: 'array', items: { type: 'string' } }],
      ['a number root', { type: 'number' }],
      ['a nullable object root', { type: ['object', 'null'] }],
    ])('refuses an output schema with %s when no revision served takes one (before 2026-07-28)', (_label, output) => {
      expectConfigError(
        () => new McpRegistry(compiler, { outputSchemaAnyRoot: false }).addTool(toolDef('listing', { output })),
        'Invalid output schema of MCP tool "listing"',
        'the root must be an object schema: the revisions this server serves need one (2026-07-28 takes any)',
      );
      const modern = new McpRegistry(compiler, { outputSchemaAnyRoot: true });
      modern.addTool(toolDef('listing', { output }));
      expect(modern.getTool('listing')!.output!.jsonSchema).toEqual(output);
    });

    it('applies the root rule to every schema kind, zod included', () => {
      expectConfigError(
        () =>
          new McpRegistry(compiler, { outputSchemaAnyRoot: false }).addTool(
            toolDef('names', { output: z.array(z.string()) }),
          ),
        'Invalid output schema of MCP tool "names"',
        'object schema',
      );
      expectConfigError(
        () => newRegistry().addTool(toolDef('names', { output: z.string() })),
        'Invalid output schema of MCP tool "names"',
        'cannot be a string or null schema',
      );
    });

    it('accepts an untyped output schema root', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('t', { output: { anyOf: [{ type: 'object' }, { type: 'object', required: ['a'] }] } }));
      expect(registry.getTool('t')!.output).toBeDefined();
    });

    it.each([
      ['null', null],
      ['an array', [{ whitelist: true }]],
      ['a boolean', true],
    ])('refuses validatorOptions that are %s', (_label, validatorOptions) => {
      expectConfigError(
        () => newRegistry().addTool(toolDef('t', { validatorOptions: validatorOptions as never })),
        'Invalid MCP tool "t": validatorOptions must be an object',
      );
    });

    it("hands the tool's validatorOptions to the schema compiler, for both schemas", () => {
      const seen: unknown[] = [];
      const spy = {
        compile: (schema: unknown, role: string, options: unknown) => {
          seen.push([role, options]);
          return compiler.compile(schema as never, role as 'input');
        },
      };
      const options = { whitelist: true };
      new McpRegistry(spy).addTool(toolDef('t', { output: { type: 'object' }, validatorOptions: options }));
      expect(seen).toEqual([
        ['input', options],
        ['output', options],
      ]);
    });

    it('accepts an untyped input schema root', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('t', { input: { properties: { a: { type: 'string' } } } }));
      expect(registry.getTool('t')).toBeDefined();
    });

    it.each([
      ['input', { input: { type: 'object', properties: { a: { type: 'nope' } } } }],
      ['output', { output: { type: 'object', required: 'a' } }],
    ])('refuses an invalid %s schema, naming the tool', (role, extra) => {
      expectConfigError(
        () => newRegistry().addTool(toolDef('broken', extra)),
        `Invalid ${role} schema of MCP tool "broken"`,
      );
    });

    it('extracts x-mcp-header bindings', () => {
      const registry = newRegistry();
      registry.addTool(
        toolDef('deploy', {
          input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
        }),
      );
      expect(registry.getTool('deploy')!.paramHeaders).toEqual([
        { name: 'Region', header: 'mcp-param-region', path: ['region'], type: 'string' },
      ]);
    });

    it.each([
      ['under items', { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }, /reachable/],
      ['on a number', { n: { type: 'number', 'x-mcp-header': 'N' } }, /string, integer or boolean/],
      ['with an invalid token', { a: { type: 'string', 'x-mcp-header': 'a b' } }, /HTTP token/],
      [
        'declared twice',
        { a: { type: 'string', 'x-mcp-header': 'Dup' }, b: { type: 'string', 'x-mcp-header': 'dup' } },
        /twice/,
      ],
    ])('an x-mcp-header %s is a configuration error naming the tool', (_label, properties, reason) => {
      const registry = newRegistry();
      expectConfigError(
        () => registry.addTool(toolDef('headers', { input: { type: 'object', properties } })),
        'Invalid input schema of MCP tool "headers"',
        reason,
      );
      expect(registry.getTool('headers')).toBeUndefined();
    });

    it('keeps the declared task support', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('long', { taskSupport: 'optional' }));
      expect(registry.getTool('long')!.taskSupport).toBe('optional');
    });
  });

  describe('resources and templates', () => {
    it('registers a resource and reads it', async () => {
      const registry = newRegistry();
      registry.addResource({ uri: 'test://a', name: 'a', mimeType: 'text/plain', cacheTtlMs: 10, handler: () => 'A' });
      expect(registry.getResource('test://a')).toMatchObject({ uri: 'test://a', name: 'a', cacheTtlMs: 10 });
      expect(await registry.getResource('test://a')!.read(noCall, undefined)).toBe('A');
    });

    it.each([
      ['an empty uri', { uri: '', name: 'x' }, /uri must be a non-empty string/],
      ['no name', { uri: 'test://x', name: '' }, /name must be a non-empty string/],
    ])('refuses a resource with %s', (_label, definition, reason) => {
      expectConfigError(() => newRegistry().addResource({ ...definition, handler: () => '' }), reason);
    });

    it('refuses a duplicate resource URI', () => {
      const registry = newRegistry();
      registry.addResource({ uri: 'test://a', name: 'a', handler: () => '' });
      expectConfigError(
        () => registry.addResource({ uri: 'test://a', name: 'b', handler: () => '' }),
        'Duplicate MCP resource "test://a"',
      );
    });

    it('registers a template that matches URIs and reads with the variables', async () => {
      const registry = newRegistry();
      registry.addResourceTemplate({
        uriTemplate: 'test://items/{id}',
        name: 'item',
        handler: (uri, variables) => `${uri} → ${variables.id}`,
      });
      const template = registry.getTemplate('test://items/{id}')!;
      expect(template.match('test://items/7')).toEqual({ id: '7' });
      expect(template.match('test://other/7')).toBeUndefined();
      expect(await template.read('test://items/7', { id: '7' }, noCall, undefined)).toBe('test://items/7 → 7');
    });

    it('matches no URI whose variables decode to a traversal, unless the template allows it', () => {
      const registry = newRegistry();
      registry.addResourceTemplate({ uriTemplate: 'safe://{id}', name: 'safe', handler: () => '' });
      registry.addResourceTemplate({
        uriTemplate: 'raw://{id}',
        name: 'raw',
        allowUnsafeValues: true,
        handler: () => '',
      });
      expect(registry.getTemplate('safe://{id}')!.match('safe://..%2Fsecret')).toBeUndefined();
      expect(registry.getTemplate('raw://{id}')!.match('raw://..%2Fsecret')).toEqual({ id: '../secret' });
    });

    it('refuses an allowUnsafeValues that is not a boolean', () => {
      expectConfigError(
        () =>
          newRegistry().addResourceTemplate({
            uriTemplate: 'raw://{id}',
            name: 'raw',
            allowUnsafeValues: 'yes' as unknown as boolean,
            handler: () => '',
          }),
        'Invalid MCP resource template "raw://{id}": allowUnsafeValues must be a boolean',
      );
    });

    it.each([['test://{'], ['test://{}'], ['test://{a}/{a}'], ['test://}']])(
      'refuses the invalid template %p',
      (uriTemplate) => {
        expectConfigError(
          () => newRegistry().addResourceTemplate({ uriTemplate, name: 't', handler: () => '' }),
          'Invalid MCP resource template',
        );
      },
    );

    it('refuses a duplicate template', () => {
      const registry = newRegistry();
      registry.addResourceTemplate({ uriTemplate: 'test://{id}', name: 'a', handler: () => '' });
      expectConfigError(
        () => registry.addResourceTemplate({ uriTemplate: 'test://{id}', name: 'b', handler: () => '' }),
        'Duplicate MCP resource template',
      );
    });

    it('refuses a completion for a variable the template does not have', () => {
      const registry = newRegistry();
      expectConfigError(
        () =>
          registry.addResourceTemplate({
            uriTemplate: 'notes://{owner}/{id}',
            name: 'note',
            complete: { name: () => [] },
            handler: () => '',
          }),
        /completion for "name"/,
      );
      expect(registry.getTemplate('notes://{owner}/{id}')).toBeUndefined();
      expect(registry.hasCompletions()).toBe(false);
    });

    it('accepts completions for template variables', () => {
      const registry = newRegistry();
      registry.addResourceTemplate({
        uriTemplate: 'notes://{owner}/{id}{?view}',
        name: 'note',
        complete: { owner: () => ['ada'], view: () => ['raw'] },
        handler: () => '',
      });
      expect(Object.keys(registry.getTemplate('notes://{owner}/{id}{?view}')!.completions)).toEqual(['owner', 'view']);
      expect(registry.hasCompletions()).toBe(true);
    });
  });

  describe('prompts', () => {
    it('registers a prompt, keeping completions apart from the advertised arguments', async () => {
      const registry = newRegistry();
      const complete = () => ['x'];
      registry.addPrompt({
        name: 'greet',
        arguments: [{ name: 'who', required: true, complete }, { name: 'tone' }],
        handler: (args) => `Hello ${args.who}`,
      });
      const prompt = registry.getPrompt('greet')!;
      expect(prompt.arguments).toEqual([{ name: 'who', required: true }, { name: 'tone' }]);
      expect(prompt.completions).toEqual({ who: complete });
      expect(registry.hasCompletions()).toBe(true);
      expect(await prompt.get({ who: 'Ada' }, noCall, undefined)).toBe('Hello Ada');
    });

    it.each([
      ['duplicate argument names', [{ name: 'a' }, { name: 'a' }]],
      ['an empty argument name', [{ name: '' }]],
    ])('refuses %s', (_label, args) => {
      expectConfigError(
        () => newRegistry().addPrompt({ name: 'p', arguments: args, handler: () => '' }),
        'argument names must be unique',
      );
    });

    it('refuses a duplicate prompt and a prompt without a name', () => {
      const registry = newRegistry();
      registry.addPrompt({ name: 'p', handler: () => '' });
      expectConfigError(() => registry.addPrompt({ name: 'p', handler: () => '' }), 'Duplicate MCP prompt "p"');
      expectConfigError(() => registry.addPrompt({ name: '', handler: () => '' }), 'name must be a non-empty string');
    });
  });

  describe('lists', () => {
    it('are sorted by their key, whatever the order of registration', () => {
      const registry = newRegistry();
      for (const name of ['delta', 'alpha', 'charlie', 'bravo']) {
        registry.addTool(toolDef(name));
        registry.addPrompt({ name, handler: () => '' });
        registry.addResource({ uri: `test://${name}`, name, handler: () => '' });
        registry.addResourceTemplate({ uriTemplate: `test://${name}/{id}`, name, handler: () => '' });
      }
      const sorted = ['alpha', 'bravo', 'charlie', 'delta'];
      expect(registry.listTools().map((tool) => tool.name)).toEqual(sorted);
      expect(registry.listPrompts().map((prompt) => prompt.name)).toEqual(sorted);
      expect(registry.listResources().map((resource) => resource.uri)).toEqual(sorted.map((n) => `test://${n}`));
      expect(registry.listTemplates().map((template) => template.uriTemplate)).toEqual(
        sorted.map((n) => `test://${n}/{id}`),
      );
    });

    it('stay sorted after removals and additions', () => {
      const registry = newRegistry();
      ['b', 'a', 'c'].forEach((name) => registry.addTool(toolDef(name)));
      expect(registry.listTools().map((tool) => tool.name)).toEqual(['a', 'b', 'c']);
      registry.removeTool('b');
      registry.addTool(toolDef('B'));
      registry.addTool(toolDef('aa'));
      expect(registry.listTools().map((tool) => tool.name)).toEqual(['B', 'a', 'aa', 'c']);
    });
  });

  describe('versions and change listeners', () => {
    it('bumps the version and tells listeners which list changed', () => {
      const registry = newRegistry();
      const seen: McpRegistryChangeKind[] = [];
      registry.onChange((kind) => seen.push(kind));
      const steps: Array<[() => unknown, McpRegistryChangeKind]> = [
        [() => registry.addTool(toolDef('t')), 'tools'],
        [() => registry.addResource({ uri: 'test://r', name: 'r', handler: () => '' }), 'resources'],
        [() => registry.addResourceTemplate({ uriTemplate: 'test://{x}', name: 'x', handler: () => '' }), 'resources'],
        [() => registry.addPrompt({ name: 'p', handler: () => '' }), 'prompts'],
        [() => registry.removeTool('t'), 'tools'],
        [() => registry.removeResource('test://r'), 'resources'],
        [() => registry.removeResourceTemplate('test://{x}'), 'resources'],
        [() => registry.removePrompt('p'), 'prompts'],
      ];
      let version = registry.version;
      for (const [step, kind] of steps) {
        step();
        expect(registry.version).toBe(version + 1);
        expect(seen[seen.length - 1]).toBe(kind);
        version = registry.version;
      }
      expect(seen).toEqual(steps.map(([, kind]) => kind));
    });

    it('removing something that does not exist changes nothing', () => {
      const registry = newRegistry();
      const listener = jest.fn();
      registry.onChange(listener);
      const version = registry.version;
      expect(registry.removeTool('none')).toBe(false);
      expect(registry.removeResource('test://none')).toBe(false);
      expect(registry.removeResourceTemplate('test://{none}')).toBe(false);
      expect(registry.removePrompt('none')).toBe(false);
      expect(registry.version).toBe(version);
      expect(listener).not.toHaveBeenCalled();
    });

    it('a failed registration changes nothing', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('t'));
      const listener = jest.fn();
      registry.onChange(listener);
      const version = registry.version;
      expect(() => registry.addTool(toolDef('t'))).toThrow(McpConfigurationError);
      expect(() => registry.addTool(toolDef('bad name'))).toThrow(McpConfigurationError);
      expect(registry.version).toBe(version);
      expect(listener).not.toHaveBeenCalled();
    });

    it('stops calling a listener once removed', () => {
      const registry = newRegistry();
      const listener = jest.fn();
      const off = registry.onChange(listener);
      registry.addTool(toolDef('a'));
      off();
      registry.addTool(toolDef('b'));
      expect(listener).toHaveBeenCalledTimes(1);
      expect(listener).toHaveBeenCalledWith('tools');
    });
  });

  describe('MCP Apps views and the tools that link to them', () => {
    const view = { uri: 'ui://notes/card', name: 'Card', handler: () => '<!doctype html><p>card</p>' };

    it('registers a view as a UI resource: fixed MIME type, _meta.ui, listed unless told otherwise', async () => {
      const registry = newRegistry();
      registry.addUiResource({ ...view, csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true });
      registry.addUiResource({ ...view, uri: 'ui://notes/hidden', listed: false });
      const [card, hidden] = registry.listResources();
      expect(card).toMatchObject({
        uri: 'ui://notes/card',
        mimeType: 'text/html;profile=mcp-app',
        meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
        listed: true,
      });
      expect(hidden).toMatchObject({ uri: 'ui://notes/hidden', listed: false, meta: undefined });
      expect(await card.read(noCall, undefined)).toEqual({
        text: '<!doctype html><p>card</p>',
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
      });
    });

    it('refuses a view that is not at a ui:// URI or has bad settings, naming it', () => {
      expectConfigError(
        () => newRegistry().addUiResource({ ...view, uri: 'notes://card' }),
        /UI resource "notes:\/\/card"/,
        /ui:\/\//,
      );
      expectConfigError(
        () => newRegistry().addUiResource({ ...view, csp: { connectDomains: ['https://*'] } }),
        /UI resource "ui:\/\/notes\/card"/,
        /csp\.connectDomains\[0\]/,
      );
    });

    it("renders a tool's ui option as _meta.ui beside its own _meta", () => {
      const registry = newRegistry();
      registry.addTool(
        toolDef('open_card', {
          _meta: { 'com.example/trace': true },
          ui: { resourceUri: 'ui://notes/card', visibility: ['app'] },
        }),
      );
      expect(registry.getTool('open_card')?.meta).toEqual({
        'com.example/trace': true,
        ui: { resourceUri: 'ui://notes/card', visibility: ['app'] },
      });
    });

    it('refuses a tool with both ui and _meta.ui, or a link that is not ui://', () => {
      expectConfigError(
        () =>
          newRegistry().addTool(
            toolDef('twice', { ui: { resourceUri: 'ui://a' }, _meta: { ui: { resourceUri: 'ui://b' } } }),
          ),
        /tool "twice"/,
        /ui option and _meta\.ui/,
      );
      expectConfigError(
        () => newRegistry().addTool(toolDef('web', { ui: { resourceUri: 'https://example.com/card.html' } })),
        /tool "web"/,
        /ui\.resourceUri must be a ui:\/\/ URI/,
      );
      expectConfigError(
        () => newRegistry().addTool(toolDef('by_hand', { _meta: { ui: { resourceUri: 'ui://a', visibility: [] } } })),
        /tool "by_hand"/,
        /ui\.visibility must be a non-empty array/,
      );
    });

    it('checks at startup that every view a tool links to is a UI resource of the registry, then each new tool', () => {
      const registry = newRegistry();
      registry.addTool(toolDef('open_card', { ui: { resourceUri: 'ui://notes/card' } }), 'NotesTools.openCard');
      registry.addUiResource(view);
      registry.checkViewLinks();
      expectConfigError(
        () => registry.addTool(toolDef('open_list', { ui: { resourceUri: 'ui://notes/list' } }), 'NotesTools.list'),
        /tool "open_list"/,
        /"ui:\/\/notes\/list" names no UI resource/,
        /NotesTools\.list/,
      );
      expect(registry.getTool('open_list')).toBeUndefined();

      const other = newRegistry();
      other.addResource({ uri: 'ui://notes/card', name: 'plain', handler: () => 'x' });
      other.addTool(toolDef('open_card', { ui: { resourceUri: 'ui://notes/card' } }), 'NotesTools.openCard');
      expectConfigError(() => other.checkViewLinks(), /names no UI resource/, /NotesTools\.openCard/);
    });
  });
});
