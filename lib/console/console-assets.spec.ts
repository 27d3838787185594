import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleAssets, CONSOLE_UI_DIRECTORY, matchesEtag } from './console-assets';

describe('ConsoleAssets', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'console-assets-'));
    writeFileSync(join(directory, 'app.js'), 'export {};\n');
    writeFileSync(join(directory, 'console.css'), 'body {}\n');
    writeFileSync(join(directory, 'logo.svg'), '<svg/>');
    writeFileSync(join(directory, 'shot.PNG'), Buffer.from([0x89, 0x50]));
    writeFileSync(join(directory, 'tsconfig.json'), '{}');
    writeFileSync(join(directory, 'notes.md'), '# no');
    mkdirSync(join(directory, 'nested.js'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('lists the files of the served types only, with their content types', () => {
    const assets = new ConsoleAssets(directory);
    expect(assets.names()).toEqual(['app.js', 'console.css', 'logo.svg', 'shot.PNG']);
    expect(assets.get('app.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('console.css')?.contentType).toBe('text/css; charset=utf-8');
    expect(assets.get('logo.svg')?.contentType).toBe('image/svg+xml');
    expect(assets.get('shot.PNG')?.contentType).toBe('image/png');
    for (const name of ['tsconfig.json', 'notes.md', 'nested.js', '../console-assets.ts', '__proto__', '']) {
      expect(assets.get(name)).toBeUndefined();
    }
  });

  it('gives each file a strong ETag from its bytes', () => {
    const assets = new ConsoleAssets(directory);
    const etag = assets.get('app.js')!.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(new ConsoleAssets(directory).get('app.js')!.etag).toBe(etag);
    expect(assets.get('console.css')!.etag).not.toBe(etag);
  });

  it('lists the files of vendor/ (the built bundles) as vendor/<name>, of the served types only', () => {
    const withVendor = mkdtempSync(join(tmpdir(), 'console-assets-'));
    try {
      writeFileSync(join(withVendor, 'app.js'), 'export {};\n');
      mkdirSync(join(withVendor, 'vendor', 'deeper'), { recursive: true });
      writeFileSync(join(withVendor, 'vendor', 'bridge.js'), 'export {};\n');
      writeFileSync(join(withVendor, 'vendor', 'bridge.d.ts'), 'export {};\n');
      writeFileSync(join(withVendor, 'vendor', 'deeper', 'more.js'), 'export {};\n');
      const assets = new ConsoleAssets(withVendor);
      expect(assets.names()).toEqual(['app.js', 'vendor/bridge.js']);
      expect(assets.get('vendor/bridge.js')?.contentType).toBe('text/javascript; charset=utf-8');
      expect(assets.get('bridge.js')).toBeUndefined();
    } finally {
      rmSync(withVendor, { recursive: true, force: true });
    }
  });

  it('serves nothing from a missing directory', () => {
    expect(new ConsoleAssets(join(directory, 'missing')).names()).toEqual([]);
  });

  it('reads console-ui/ by default from the sources, dom.js among its files', () => {
    expect(CONSOLE_UI_DIRECTORY).toBe(join(__dirname, '..', '..', 'console-ui'));
    expect(new ConsoleAssets().names()).toContain('dom.js');
  });
});

describe('matchesEtag', () => {
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
  ])('If-None-Match %j -> %s', (header, matches) => {
    expect(matchesEtag(header, '"abc"')).toBe(matches);
  });
});
