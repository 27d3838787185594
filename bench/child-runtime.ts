/**
 * What the children (the MCP sample, the floor, the round-robin proxy) share: listening on a
 * random 127.0.0.1 port, reporting to the parent over IPC, forwarding logged errors, and shutting
 * down cleanly; CPU profiles of the measured windows on request.
 */
import { ConsoleLogger, type INestApplication, type LoggerService, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { HeapReply, HeapRequest } from './heap-probe';
import type { TelemetryCounts } from './telemetry-sdk';

/** Messages a child sends to the bench. */
export type ChildMessage =
  /** `telemetry`: the module's startup line about OpenTelemetry, when it logged one. */
  | { type: 'ready'; port: number; platform?: BenchPlatform; tools?: number; path?: string; telemetry?: string }
  | { type: 'server-error'; message: string }
  | { type: 'ack' }
  | { type: 'cpu'; userUs: number; systemUs: number }
  /** The round-robin proxy: requests sent to each target so far. */
  | { type: 'hits'; hits: number[] }
  /** The telemetry child (--telemetry): what its SDK recorded so far. */
  | ({ type: 'telemetry' } & TelemetryCounts)
  /** A child started with the heap probe (bench/heap-probe.ts, the memory section). */
  | HeapReply;

/** Messages the bench sends to a child. */
export type ParentMessage =
  | { type: 'shutdown' }
  | { type: 'cpu' }
  /** Start the V8 CPU profiler, or stop it and write the profile to `file`. */
  | { type: 'profile'; action: 'start' }
  | { type: 'profile'; action: 'stop'; file: string }
  | { type: 'tools'; legacy: unknown[]; modern: unknown[] }
  | { type: 'hits' }
  | { type: 'telemetry' }
  /** Answered by the heap probe only: a child started without it ignores it. */
  | HeapRequest;

export function send(message: ChildMessage): void {
  process.send?.(message);
}

/** Prints warnings and errors only, and reports every error to the bench, which then fails. */
export class ReportingLogger extends ConsoleLogger {
  constructor(context: string) {
    super(context, { logLevels: ['error', 'warn'] });
  }

  override error(message: unknown, ...rest: unknown[]): void {
    send({ type: 'server-error', message: String(message) });
    super.error(message, ...rest);
  }
}

let profiler: Session | undefined;

function post(session: Session, method: string, params?: object): Promise<any> {
  return new Promise((done, fail) =>
    session.post(method, params, (error: Error | null, result?: unknown) => (error ? fail(error) : done(result))),
  );
}

/** Profiles only the measured windows (not startup, not ts-node compiling the sources). */
async function profile(message: Extract<ParentMessage, { type: 'profile' }>): Promise<void> {
  if (message.action === 'start') {
    profiler = new Session();
    profiler.connect();
    await post(profiler, 'Profiler.enable');
    await post(profiler, 'Profiler.setSamplingInterval', { interval: 250 });
    await post(profiler, 'Profiler.start');
  } else if (profiler !== undefined) {
    const { profile: result } = (await post(profiler, 'Profiler.stop')) as { profile: unknown };
    profiler.disconnect();
    profiler = undefined;
    writeFileSync(message.file, JSON.stringify(result));
  }
  send({ type: 'ack' });
}

/**
 * Wires a child to the bench: CPU time and profiles on request, other messages to `onMessage`,
 * errors reported, and `close` then exit on shutdown (or when the bench goes away).
 */
export function attach(close: () => Promise<unknown>, onMessage?: (message: ParentMessage) => void): void {
  let closing = false;
  const shutdown = (code: number): void => {
    if (closing) {
      return;
    }
    closing = true;
    const force = setTimeout(() => process.exit(code), 3000);
    force.unref();
    close().then(
      () => process.exit(code),
      () => process.exit(code),
    );
  };
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'shutdown') {
      shutdown(0);
    } else if (message.type === 'cpu') {
      // CPU time is what a busy, shared machine does not distort much: the bench reads it around
      // every measured slice to get the server's CPU cost per request.
      const usage = process.cpuUsage();
      send({ type: 'cpu', userUs: usage.user, systemUs: usage.system });
    } else if (message.type === 'profile') {
      profile(message).catch((error: unknown) => send({ type: 'server-error', message: `profiler: ${String(error)}` }));
    } else {
      onMessage?.(message);
    }
  });
  // The bench went away without saying goodbye: do not outlive it.
  process.on('disconnect', () => shutdown(0));
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.on('uncaughtException', (error) => {
    send({ type: 'server-error', message: `uncaught exception: ${error.stack ?? String(error)}` });
    shutdown(1);
  });
  process.on('unhandledRejection', (reason) => {
    send({ type: 'server-error', message: `unhandled rejection: ${String(reason)}` });
  });
}

/** The HTTP platforms the bench measures on. */
export type BenchPlatform = 'express' | 'fastify';

/** The platform of this child: `BENCH_PLATFORM` (express by default). */
export function benchPlatform(): BenchPlatform {
  const platform = process.env.BENCH_PLATFORM ?? 'express';
  if (platform !== 'express' && platform !== 'fastify') {
    throw new Error(`BENCH_PLATFORM must be express or fastify, not "${platform}"`);
  }
  return platform;
}

/**
 * Creates the application on this child's platform. Fastify is loaded only when asked for, so
 * an Express child carries nothing of it; on Fastify the adapter has its defaults, as an
 * application that switches platform gets them.
 */
export async function createBenchApp(module: Type<unknown>, logger: LoggerService): Promise<INestApplication> {
  if (benchPlatform() === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    return NestFactory.create(module, new FastifyAdapter(), { logger });
  }
  return NestFactory.create(module, { logger });
}

/** Listens on 127.0.0.1 (random port), reports readiness and wires shutdown. */
export async function serve(
  app: INestApplication,
  onMessage?: (message: ParentMessage) => void,
  extra: { tools?: number; path?: string; telemetry?: string } = {},
): Promise<void> {
  attach(() => app.close(), onMessage);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  send({ type: 'ready', port: address.port, platform: benchPlatform(), ...extra });
}
