/**
 * Kept for importers of the former method table: every answer now comes from `methods.ts`.
 *
 * @deprecated import from `./methods`.
 */
export { CACHEABLE_METHODS, LONG_LIVED_METHODS, SELF_TIMED_METHODS, servesMethod } from './methods';
