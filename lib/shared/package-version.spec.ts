import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_VERSION } from './package-version';

describe('PACKAGE_VERSION', () => {
  it("is package.json's version (bump both together)", () => {
    const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(PACKAGE_VERSION).toBe(manifest.version);
  });
});
