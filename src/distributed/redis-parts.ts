import { Redis } from 'ioredis';
import type { CredentialInvalidation } from '../identity/cache-invalidations.js';
import type { AnnouncedEvent, ControlMessage } from '../ports/channels.js';
import { type ChannelsLog, RedisChannels } from '../realtime/redis-channels.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';

/** What the nodes of a cluster share through Redis (DESIGN §12). */
export interface SharedParts {
  rateLimits: RedisRateLimitStore;
  bus: RedisChannels<AnnouncedEvent>;
  control: RedisChannels<ControlMessage>;
  /** Where nodes tell each other which cached credentials to forget (the shared credential cache's channel). */
  invalidations: RedisChannels<CredentialInvalidation>;
  close(): Promise<void>;
}

/**
 * Opens the Redis side of distributed mode. Each kind of channel has a prefix of its own
 * (execution ids and workspace ids would otherwise share one name space); `prefix` keeps
 * whole clusters apart on one Redis (tests give each server group its own).
 */
export function redisParts(redisUrl: string, options: { prefix: string; log: ChannelsLog }): SharedParts {
  const { prefix, log } = options;
  const counters = new Redis(redisUrl, { connectionName: `${prefix}rate-limits` });
  counters.on('error', (error: Error) => log.warn({ err: error }, 'rate limit counters connection'));
  const bus = RedisChannels.fromUrl<AnnouncedEvent>(redisUrl, { prefix: `${prefix}events:`, log });
  const control = RedisChannels.fromUrl<ControlMessage>(redisUrl, { prefix: `${prefix}control:`, log });
  const invalidations = RedisChannels.fromUrl<CredentialInvalidation>(redisUrl, { prefix: `${prefix}credentials:`, log });
  return {
    rateLimits: new RedisRateLimitStore(counters, { prefix: `${prefix}rl:` }),
    bus,
    control,
    invalidations,
    async close() {
      await Promise.all([bus.close(), control.close(), invalidations.close(), counters.quit().catch(() => undefined)]);
    },
  };
}
