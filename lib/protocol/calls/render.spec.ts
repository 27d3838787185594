import type { McpCompiledSchema, McpPromptEntry, McpResourceEntry, McpTemplateEntry, McpToolEntry } from './catalog';
import type { JSONObject } from '../messages/json-rpc';
import type { CallToolResult, Implementation, Icon } from '../messages/mcp-types';
import {
  outputSchemaVisible,
  renderImplementation,
  renderPrompt,
  renderResource,
  renderTemplate,
  renderTool,
  renderToolResult,
} from './render';
import type { McpRevision } from '../messages/revisions';

const ALL_REVISIONS: McpRevision[] = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const ICONS: Icon[] = [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }];
const META = { 'com.example/owner': 'team-a' };

/** Whether `revision` is one of the revisions from `first` on. */
function from(first: McpRevision, revision: string | undefined): boolean {
  return revision !== undefined && ALL_REVISIONS.indexOf(revision as McpRevision) >= ALL_REVISIONS.indexOf(first);
}

function schema(jsonSchema: JSONObject): McpCompiledSchema {
  return { jsonSchema, validate: (value) => ({ ok: true, value }) };
}

function tool(overrides: Partial<McpToolEntry> = {}): McpToolEntry {
  return {
    name: 'search',
    input: schema({ type: 'object', properties: { q: { type: 'string' } } }),
    taskSupport: 'forbidden',
    paramHeaders: [],
    invoke: async () => undefined,
    ...overrides,
  };
}

const OBJECT_OUTPUT = { type: 'object', properties: { hits: { type: 'integer' } } };
const ARRAY_OUTPUT = { type: 'array', items: { type: 'string' } };

const fullTool = tool({
  title: 'Search',
  description: 'Searches',
  icons: ICONS,
  meta: META,
  annotations: { readOnlyHint: true },
  output: schema(OBJECT_OUTPUT),
});

describe('renderTool', () => {
  it.each(ALL_REVISIONS)('at %s shows only the fields the revision defines', (revision) => {
    const rendered = renderTool(fullTool, revision);
    expect(rendered.name).toBe('search');
    expect(rendered.description).toBe('Searches');
    expect(rendered.inputSchema).toBe(fullTool.input.jsonSchema);
    expect('title' in rendered).toBe(from('2025-06-18', revision));
    expect('_meta' in rendered).toBe(from('2025-06-18', revision));
    expect('icons' in rendered).toBe(from('2025-11-25', revision));
    expect('outputSchema' in rendered).toBe(from('2025-06-18', revision));
    expect('annotations' in rendered).toBe(from('2025-03-26', revision));
  });

  it('renders every field at the newest revision', () => {
    expect(renderTool(fullTool, '2026-07-28')).toEqual({
      name: 'search',
      title: 'Search',
      icons: ICONS,
      _meta: META,
      description: 'Searches',
      inputSchema: fullTool.input.jsonSchema,
      outputSchema: OBJECT_OUTPUT,
      annotations: { readOnlyHint: true },
    });
  });

  it('renders the bare minimum of a tool with nothing optional', () => {
    expect(renderTool(tool(), '2026-07-28')).toEqual({ name: 'search', inputSchema: tool().input.jsonSchema });
  });

  it('omits an empty icon list', () => {
    expect('icons' in renderTool(tool({ icons: [] }), '2026-07-28')).toBe(false);
  });

  it('with no revision known, renders the optional fields a probe may see', () => {
    const rendered = renderTool(fullTool, undefined);
    expect(rendered).toMatchObject({ title: 'Search', icons: ICONS, outputSchema: OBJECT_OUTPUT });
    expect(rendered.annotations).toEqual({ readOnlyHint: true });
  });

  describe('outputSchema that is not object-rooted', () => {
    const arrayTool = tool({ output: schema(ARRAY_OUTPUT) });
    const untypedTool = tool({ output: schema({ anyOf: [OBJECT_OUTPUT, { type: 'null' }] }) });

    it.each(ALL_REVISIONS)('at %s is shown only from 2026-07-28', (revision) => {
      expect('outputSchema' in renderTool(arrayTool, revision)).toBe(revision === '2026-07-28');
      expect('outputSchema' in renderTool(untypedTool, revision)).toBe(revision === '2026-07-28');
      expect(outputSchemaVisible(revision, arrayTool)).toBe(revision === '2026-07-28');
    });

    it('is hidden when no revision is known', () => {
      expect(outputSchemaVisible(undefined, arrayTool)).toBe(false);
      expect(outputSchemaVisible(undefined, fullTool)).toBe(true);
    });
  });

  it('a tool without output schema never shows one', () => {
    expect(outputSchemaVisible('2026-07-28', tool())).toBe(false);
  });
});

describe('renderResource and renderTemplate', () => {
  const resource: McpResourceEntry = {
    uri: 'test://r',
    name: 'r',
    title: 'R',
    description: 'A resource',
    mimeType: 'text/plain',
    size: 12,
    annotations: { audience: ['user'], priority: 0.5 },
    icons: ICONS,
    meta: META,
    read: async () => 'x',
  };
  const template: McpTemplateEntry = {
    uriTemplate: 'test://t/{id}',
    name: 't',
    title: 'T',
    description: 'A template',
    mimeType: 'application/json',
    annotations: { priority: 1 },
    icons: ICONS,
    meta: META,
    completions: {},
    match: () => undefined,
    read: async () => 'x',
  };

  it.each(ALL_REVISIONS)('at %s gate title, _meta and icons; keep the rest', (revision) => {
    for (const rendered of [renderResource(resource, revision), renderTemplate(template, revision)]) {
      expect('title' in rendered).toBe(from('2025-06-18', revision));
      expect('_meta' in rendered).toBe(from('2025-06-18', revision));
      expect('icons' in rendered).toBe(from('2025-11-25', revision));
      expect(rendered).toHaveProperty('annotations');
      expect(rendered).toHaveProperty('description');
      expect(rendered).toHaveProperty('mimeType');
    }
    expect(renderResource(resource, revision)).toMatchObject({ uri: 'test://r', name: 'r', size: 12 });
    expect(renderTemplate(template, revision)).toMatchObject({ uriTemplate: 'test://t/{id}', name: 't' });
  });

  it('render only what is set', () => {
    expect(renderResource({ uri: 'u://x', name: 'x', read: async () => '' }, '2026-07-28')).toEqual({
      uri: 'u://x',
      name: 'x',
    });
    expect(
      renderTemplate(
        { uriTemplate: 'u://{x}', name: 'x', completions: {}, match: () => undefined, read: async () => '' },
        '2026-07-28',
      ),
    ).toEqual({ uriTemplate: 'u://{x}', name: 'x' });
  });
});

describe('renderPrompt', () => {
  const prompt: McpPromptEntry = {
    name: 'review',
    title: 'Review',
    description: 'Reviews code',
    arguments: [{ name: 'code', title: 'Code', description: 'The code', required: true }, { name: 'style' }],
    icons: ICONS,
    completions: {},
    get: async () => 'x',
  };

  it.each(ALL_REVISIONS)('at %s gates the titles of the prompt and of its arguments', (revision) => {
    const rendered = renderPrompt(prompt, revision);
    const args = rendered.arguments as JSONObject[];
    expect('title' in rendered).toBe(from('2025-06-18', revision));
    expect('title' in args[0]).toBe(from('2025-06-18', revision));
    expect('icons' in rendered).toBe(from('2025-11-25', revision));
  });

  it('marks arguments required or not explicitly', () => {
    expect(renderPrompt(prompt, '2026-07-28').arguments).toEqual([
      { name: 'code', title: 'Code', description: 'The code', required: true },
      { name: 'style', required: false },
    ]);
  });

  it('omits an empty argument list', () => {
    expect(renderPrompt({ ...prompt, arguments: [] }, '2026-07-28')).not.toHaveProperty('arguments');
  });
});

describe('renderImplementation', () => {
  const info: Implementation = {
    name: 'srv',
    version: '1.2.3',
    title: 'Server',
    description: 'A server',
    websiteUrl: 'https://example.com',
    icons: ICONS,
  };

  it.each(ALL_REVISIONS)('at %s shows only the fields the revision defines', (revision) => {
    const rendered = renderImplementation(info, revision);
    expect(rendered).toMatchObject({ name: 'srv', version: '1.2.3' });
    expect('title' in rendered).toBe(from('2025-06-18', revision));
    expect('description' in rendered).toBe(from('2025-11-25', revision));
    expect('websiteUrl' in rendered).toBe(from('2025-11-25', revision));
    expect('icons' in rendered).toBe(from('2025-11-25', revision));
  });

  it('does not leak unknown fields', () => {
    expect(renderImplementation({ name: 'a', version: '1', secret: 'x' }, '2026-07-28')).toEqual({
      name: 'a',
      version: '1',
    });
  });
});

describe('renderToolResult', () => {
  const text = { type: 'text' as const, text: '{"hits":1}' };
  const audio = { type: 'audio' as const, data: 'AAAA', mimeType: 'audio/wav' };

  it.each(ALL_REVISIONS)('at %s keeps object structuredContent only from 2025-06-18', (revision) => {
    const result: CallToolResult = { content: [text], structuredContent: { hits: 1 } };
    const rendered = renderToolResult(result, revision, tool({ output: schema(OBJECT_OUTPUT) }));
    expect('structuredContent' in rendered).toBe(from('2025-06-18', revision));
    expect(rendered.content).toEqual([text]);
  });

  it.each(ALL_REVISIONS)('at %s keeps non-object structuredContent only from 2026-07-28', (revision) => {
    const result: CallToolResult = { content: [text], structuredContent: ['a', 'b'] };
    expect('structuredContent' in renderToolResult(result, revision, tool({ output: schema(ARRAY_OUTPUT) }))).toBe(
      revision === '2026-07-28',
    );
    expect('structuredContent' in renderToolResult({ content: [], structuredContent: 3 }, revision, undefined)).toBe(
      revision === '2026-07-28',
    );
  });

  it('drops object structuredContent when the tool output schema cannot be shown at that revision', () => {
    const untyped = tool({ output: schema({ anyOf: [OBJECT_OUTPUT] }) });
    const result: CallToolResult = { content: [text], structuredContent: { hits: 1 } };
    expect(renderToolResult(result, '2025-11-25', untyped)).not.toHaveProperty('structuredContent');
    expect(renderToolResult(result, '2026-07-28', untyped)).toHaveProperty('structuredContent', { hits: 1 });
  });

  it.each(ALL_REVISIONS)('at %s drops audio content before 2025-03-26', (revision) => {
    const result: CallToolResult = { content: [text, audio] };
    const rendered = renderToolResult(result, revision, undefined);
    expect(rendered.content).toEqual(from('2025-03-26', revision) ? [text, audio] : [text]);
  });

  it('keeps isError and _meta, and leaves the input untouched', () => {
    const result: CallToolResult = {
      content: [text, audio],
      structuredContent: { hits: 1 },
      isError: true,
      _meta: META,
    };
    const rendered = renderToolResult(result, '2024-11-05', undefined);
    expect(rendered).toEqual({ content: [text], isError: true, _meta: META });
    expect(result.content).toHaveLength(2);
    expect(result.structuredContent).toEqual({ hits: 1 });
  });

  it('returns a result the revision takes whole as it is, without a copy', () => {
    const result: CallToolResult = { content: [text], structuredContent: { hits: 1 } };
    expect(renderToolResult(result, '2026-07-28', tool({ output: schema(OBJECT_OUTPUT) }))).toBe(result);
    const links: CallToolResult = { content: [{ type: 'resource_link', name: 'n', uri: 'file:///n' }] };
    const before = renderToolResult(links, '2025-03-26', undefined);
    expect(before).not.toBe(links);
    expect(before.content).toEqual([{ type: 'text', text: 'Resource n: file:///n' }]);
    expect(links.content[0].type).toBe('resource_link');
  });
});
