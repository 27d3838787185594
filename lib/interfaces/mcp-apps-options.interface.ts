import type { McpUiResourceMeta } from '../protocol/apps/apps';

/**
 * MCP Apps (`io.modelcontextprotocol/ui`): views that ship with the application as built HTML
 * files. Views written as provider methods use `@McpUiResource` instead.
 *
 * @publicApi
 */
export interface McpAppsOptions {
  /**
   * Views built into one HTML file each, read once at startup: a file that is missing, is not
   * a file, or is larger than 5 MiB stops the application, naming the option.
   * @default []
   * @example { apps: { views: [{ uri: 'ui://notes/note-card', name: 'Note card', file: 'dist/views/note-card.html' }] } }
   */
  views?: McpAppViewOptions[];
}

/**
 * One view of `apps.views`: an HTML file served as the UI resource at `uri`
 * (`text/html;profile=mcp-app`, its text as read at startup), with how hosts render it
 * (`_meta.ui`). It is listed in `resources/list` unless `listed` is `false`.
 *
 * @publicApi
 */
export interface McpAppViewOptions extends McpUiResourceMeta {
  /** The `ui://` URI tools link to (`ui: { resourceUri }`). */
  uri: string;
  /** The resource name. */
  name: string;
  /** A human-readable name (2025-06-18 and later). */
  title?: string;
  /** What the view shows, for hosts that list views. */
  description?: string;
  /** The HTML file: an absolute path, or one relative to the working directory of the process. */
  file: string;
  /** `false` leaves the view out of `resources/list` (hosts reach it through its tools). */
  listed?: boolean;
}
