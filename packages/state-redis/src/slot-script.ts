/**
 * Concurrent slots of a bucket, as a Redis sorted set of holders scored by
 * the end of their lease, on the server's clock (TIME), so machines with
 * skewed clocks agree. rate-limiter-flexible counts requests per window and
 * has no slots; this is the usual semaphore of the Redis documentation, in
 * one script so that the check and the take are one step.
 *
 * KEYS[1] the set; ARGV[1] the slots; ARGV[2] the lease in ms; ARGV[3] the holder.
 * Returns -1 when the slot is taken, else the ms until the oldest lease ends.
 */
export const ENTER_SLOT_SCRIPT = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  local lease = tonumber(ARGV[2])
  redis.call('ZADD', KEYS[1], ms + lease, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
  return -1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) - ms)
`
