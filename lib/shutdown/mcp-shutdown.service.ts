import { Inject, Injectable, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { MCP_OWN_STDIO, MCP_OWN_TASKS, MCP_SERVER_SETTINGS } from '../shared/mcp.constants';
import type { McpServerSettings } from '../shared/server-settings';
import {
  CALL_STOPPED_BY_SHUTDOWN,
  DRAIN_GRACE_ENDED,
  DRAIN_STARTED,
  SHUTDOWN_COMPLETE,
  TASK_STOPPED_BY_SHUTDOWN,
} from '../shared/mcp.messages';
import { McpEngine } from '../protocol/engine';
import { ServerShutdownError } from '../protocol/calls/call-scope';
import { within } from '../protocol/messages/thenables';
import { McpTaskService } from '../tasks/mcp-task.service';
import { ResumableStreams } from '../transports/http/resumable-streams.service';
import { LegacySseService } from '../transports/http/legacy-sse.service';
import { McpStdioServer } from '../transports/stdio/mcp-stdio.server';
import { HttpDrain } from '../transports/http/http-drain';
import { McpLogger } from '../telemetry/mcp.logger';

/**
 * How long the end of a drain waits, past the grace period, for what must still happen there:
 * the failed tasks stored, the task outcomes not stored yet written once more, the requests
 * that were opening a stream when the drain began done with it. A store or a handler that
 * hangs must not hold the process beyond it.
 */
const SETTLE_MS = 500;

/**
 * The shutdown of the MCP server, in an order rolling deploys can rely on:
 *
 * 1. no new work: HTTP requests that would run or open something get 503 with `Retry-After`
 *    (`HttpDrain`), stdio requests an error;
 * 2. the held streams are told: legacy GET streams and the SSE pairs with no call running end,
 *    so that their clients reconnect (to another instance behind a balancer) and resume there;
 *    modern `subscriptions/listen` streams end as they always did, told and answered;
 * 3. the calls in flight (every transport, both eras) and the tasks working here finish, for
 *    at most `shutdownGraceMs`;
 * 4. then the tasks still working fail, stored first (a shared store keeps them readable from
 *    the other instances), and the calls still running have their signal aborted and are
 *    answered with an error;
 * 5. last, what is still open ends: the SSE pairs kept for their calls (their answers have gone
 *    out on them), streams opened by requests that were under way when the drain began, and
 *    the stdio connections; the task outcomes the store has not taken yet (it failed while the
 *    works ended) get a last write, and those it still refuses are logged by task id.
 *
 * Nest then closes the HTTP server, which only has idle keep-alive connections left: its
 * `close()` closes them (Node 19 and later) and resolves.
 */
@Injectable()
export class McpShutdown implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new McpLogger('McpShutdown');
  private drained: Promise<void> | undefined;
  private startedAt = 0;
  private abortedCalls = 0;
  private failedTasks = 0;
  private reported = false;

  constructor(
    @Inject(MCP_SERVER_SETTINGS) private readonly settings: Pick<McpServerSettings, 'shutdownGraceMs'>,
    private readonly engine: McpEngine,
    @Inject(MCP_OWN_TASKS) private readonly tasks: McpTaskService,
    private readonly http: HttpDrain,
    private readonly streams: ResumableStreams,
    private readonly pairs: LegacySseService,
    @Inject(MCP_OWN_STDIO) private readonly stdio: McpStdioServer,
  ) {}

  /**
   * The drain runs in the first hook of Nest's shutdown, and the shutdown goes on once it is
   * over. Nest calls `onModuleDestroy` (without the signal, which the drain does not need), then
   * `beforeApplicationShutdown`, then closes the HTTP server, then calls `onApplicationShutdown`:
   * - the HTTP server's close waits for every open connection, and a held stream never ends on
   *   its own, so the drain must be over before it;
   * - the calls in flight finish best while the application still works: its providers release
   *   what they hold (database pools, clients) in their shutdown hooks, mostly the later two.
   * Within this module, Nest destroys a provider before those it depends on: the services this
   * one drains keep working until the drain is over.
   */
  onModuleDestroy(): Promise<void> {
    return this.drain();
  }

  /** The last hook: the HTTP server is closed too. Reported once, however often the application is closed. */
  onApplicationShutdown(): void {
    if (this.drained !== undefined && !this.reported) {
      this.reported = true;
      this.logger.log(SHUTDOWN_COMPLETE(Date.now() - this.startedAt, this.abortedCalls, this.failedTasks));
    }
  }

  /** Drains the server, once: the shutdown's first phase (see the class). */
  drain(): Promise<void> {
    this.drained ??= this.run();
    return this.drained;
  }

  private async run(): Promise<void> {
    this.startedAt = Date.now();
    const graceMs = this.settings.shutdownGraceMs;
    const { running, subscriptions } = this.engine;
    const calls = running.size - running.longLived;
    const listens = subscriptions.size;

    this.http.begin();
    this.stdio.drain();

    const ended =
      this.streams.endHeldStreams() + this.pairs.endPairs((sessionId) => this.engine.runningIn(sessionId) > 0);
    await subscriptions.closeAll();
    this.logger.log(DRAIN_STARTED(calls, listens + ended, this.tasks.liveCount, graceMs));

    if (!(await this.settled(graceMs))) {
      const failing = this.tasks.liveCount;
      this.logger.warn(DRAIN_GRACE_ENDED(graceMs, running.size, failing));
      // Tasks first: a `tasks/result` waiting for one of them is answered with its failure.
      await within(this.tasks.failLive(TASK_STOPPED_BY_SHUTDOWN), SETTLE_MS);
      this.failedTasks = failing;
      this.abortedCalls = running.abortAll(new ServerShutdownError(CALL_STOPPED_BY_SHUTDOWN(graceMs)));
    }

    // The answers are written once their requests' handlers return. Meanwhile, before the stores
    // close, the outcomes not stored yet get their last chance (logged by id when it fails).
    await Promise.all([within(this.http.whenQuiet(), SETTLE_MS), this.tasks.storeOutcomes(SETTLE_MS)]);
    this.streams.endHeldStreams();
    this.pairs.endPairs();
    await this.stdio.close();
  }

  /**
   * Waits until no call runs and no task works here, for at most `graceMs`; resolves whether
   * that came first.
   */
  private async settled(graceMs: number): Promise<boolean> {
    const { running } = this.engine;
    const idle = async (): Promise<true> => {
      // A call may leave its request for a task, and a request read before the drain began may
      // start a call: both are waited for.
      while (running.size > 0 || this.tasks.liveCount > 0) {
        await Promise.all([running.whenIdle(), this.tasks.whenIdle()]);
      }
      return true;
    };
    return (await within(idle(), graceMs)) === true;
  }
}
