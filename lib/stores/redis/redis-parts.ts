/**
 * The Redis connections, stores, link and bus in one place, for `store.providers` to load them
 * when `redis` is set: an application without Redis does not load their code at startup.
 */
export { RedisHub } from './redis-hub';
export { RedisClock } from './redis-clock';
export { RedisClusterLink } from './redis-cluster.link';
export { RedisNotificationBus } from './redis-notification.bus';
export { RedisReplayStore } from './redis-replay.store';
export { RedisSessionStore } from './redis-session.store';
export { RedisTaskStore } from './redis-task.store';
