/**
 * The console of a server in search mode (`toolSearch`): the Tools list shows what `tools/list`
 * answers (`search_tools`), a search's results join the list marked found, and a tool found is
 * called from its own form, as a listed one.
 */
import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from 'nest-mcp';
import { z } from 'zod';
import { startHttpApp, type HttpApp } from '../fixtures/http-app';
import { useBrowser, waitForText } from '../support/browser';
import { callTool, openConsole, toolButton } from '../support/console-page';

jest.setTimeout(90_000);

@Injectable()
class ArchiveTools {
  @McpTool({
    name: 'notes_archive',
    description: 'Archives a note',
    input: z.object({ id: z.string() }),
  })
  archive({ id }: { id: string }): string {
    return `Archived note ${id}`;
  }

  @McpTool({ name: 'notes_restore', description: 'Brings back an archived note' })
  restore(): string {
    return 'restored';
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'search-console', version: '1.0.0', toolSearch: true, console: true })],
  providers: [ArchiveTools],
})
class SearchConsoleModule {}

describe('console: a server in search mode', () => {
  let http: HttpApp;
  beforeAll(async () => {
    http = await startHttpApp(SearchConsoleModule);
  }, 60_000);
  afterAll(async () => {
    await http?.close();
  });

  const browser = useBrowser({ origins: () => [http.baseUrl] });

  browser.test('lists search_tools, then the tools a search finds, which are called by name', async ({ page }) => {
    await openConsole(page, `${http.baseUrl}/mcp/console`, 'Connected to search-console 1.0.0');
    await toolButton(page, 'search_tools').waitFor();
    expect(await toolButton(page, 'notes_archive').count()).toBe(0);

    await callTool(page, 'search_tools', { query: 'archive a note' }, 'notes_archive');
    await waitForText(toolButton(page, 'notes_archive'), /found/);

    await callTool(page, 'notes_archive', { id: 'n-7' }, 'Archived note n-7');
  });
});
