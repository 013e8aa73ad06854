/**
 * Replaces one field of a hash when it holds the expected value now, in one
 * step on the server (a compare-and-set; HSETNX covers only "absent").
 *
 * KEYS[1] the hash; ARGV[1] the field; ARGV[2] '1' when the field must be
 * absent, else '0'; ARGV[3] the expected value; ARGV[4] the new value.
 * Returns 1 when it replaced the field, 0 when the field held something else.
 */
export const REPLACE_RECORD_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  if current then return 0 end
elseif current ~= ARGV[3] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
return 1
`
