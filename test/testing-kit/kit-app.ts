/**
 * Boots the kit's fixture application without listening (the test client needs no port), on
 * Express or Fastify.
 */
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test, type TestingModule } from '@nestjs/testing';
import type { McpModuleExtras, McpModuleOptions } from 'nest-mcp';
import type { HttpPlatform } from '../fixtures/http-app';
import { KitFixtureModule } from './kit-fixture';

export const PLATFORMS: HttpPlatform[] = ['express', 'fastify'];
/** The eras the kit's specs run in: the modern revision and the newest legacy one. */
export const REVISIONS = ['2026-07-28', '2025-11-25'] as const;

/** The compiled testing module of the fixture. */
export function kitModule(
  options: Partial<McpModuleOptions> = {},
  extras: McpModuleExtras = {},
): Promise<TestingModule> {
  return Test.createTestingModule({ imports: [KitFixtureModule.forRoot(options, extras)] }).compile();
}

/** The fixture's application on `platform`, not initialised (the test client inits it). */
export async function kitApp(
  platform: HttpPlatform,
  options: Partial<McpModuleOptions> = {},
  extras: McpModuleExtras = {},
): Promise<INestApplication> {
  const moduleRef = await kitModule(options, extras);
  return platform === 'fastify'
    ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
    : moduleRef.createNestApplication({ logger: false });
}
