/**
 * The `apps` section of the module options: the views shipped as built HTML files, checked and
 * read once, at startup (a bad one stops the application naming the option), then registered
 * in the server's registry as UI resources.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { McpAppsOptions, McpAppViewOptions } from '../interfaces/mcp-apps-options.interface';
import type { McpUiResourceMeta } from '../protocol/apps/apps';
import { uiResourceMetaProblem, uiUriProblem } from '../protocol/apps/ui-checks';
import { fail, section, text } from '../shared/option-checks';
import type { McpRegistry } from './mcp-registry.service';

/** The largest view file read at startup: a built view is a few hundred KiB; more is a mistake. */
export const MAX_VIEW_BYTES = 5 * 1024 * 1024;

/** One view of `apps.views`, its HTML read. */
export interface AppView extends McpUiResourceMeta {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly listed?: boolean;
  readonly html: string;
  /** `apps.views[i]`, where it is declared, for the registry's messages. */
  readonly option: string;
}

/** The apps settings, resolved from the module options (`apps`). */
export interface AppsSettings {
  readonly views: readonly AppView[];
}

function readView(file: string, option: string): string {
  const path = resolve(process.cwd(), file);
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) {
      fail(option, `must name a file (${path} is not one)`);
    }
    size = stats.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      fail(option, `names a file that does not exist: ${path}`);
    }
    throw error;
  }
  if (size > MAX_VIEW_BYTES) {
    fail(option, `names a file of ${size} bytes, over the ${MAX_VIEW_BYTES} (5 MiB) a view may have: ${path}`);
  }
  return readFileSync(path, 'utf8');
}

function resolveView(view: unknown, option: string): AppView {
  if (typeof view !== 'object' || view === null || Array.isArray(view)) {
    fail(option, 'must be an object { uri, name, file, csp?, permissions?, domain?, prefersBorder? }');
  }
  const given = view as Partial<McpAppViewOptions>;
  const uriProblem = uiUriProblem(given.uri);
  if (uriProblem !== undefined) {
    fail(`${option}.uri`, uriProblem);
  }
  const name = text(given.name, `${option}.name`, true)!;
  const title = text(given.title, `${option}.title`, false);
  const description = text(given.description, `${option}.description`, false);
  if (given.listed !== undefined && typeof given.listed !== 'boolean') {
    fail(`${option}.listed`, 'must be a boolean');
  }
  const problem = uiResourceMetaProblem(given);
  if (problem !== undefined) {
    fail(`${option}${problem.at}`, problem.reason);
  }
  const file = text(given.file, `${option}.file`, true)!;
  const { csp, permissions, domain, prefersBorder, listed } = given;
  return {
    uri: given.uri!,
    name,
    title,
    description,
    csp,
    permissions,
    domain,
    prefersBorder,
    listed,
    html: readView(file, `${option}.file`),
    option,
  };
}

/**
 * Validates the `apps` section and reads its views' files.
 *
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveAppsSettings(apps: McpAppsOptions | undefined): AppsSettings {
  const { views } = section(apps, 'apps');
  if (views === undefined) {
    return { views: [] };
  }
  if (!Array.isArray(views)) {
    fail('apps.views', 'must be an array of { uri, name, file }');
  }
  return { views: views.map((view, index) => resolveView(view, `apps.views[${index}]`)) };
}

/** Registers the views of `apps.views` in the server's registry, each under its option's name. */
export function registerAppViews(registry: McpRegistry, settings: AppsSettings): void {
  for (const { html, option, ...view } of settings.views) {
    registry.addUiResource({ ...view, handler: () => html }, option);
  }
}
