/**
 * Lua helpers shared by the Redis stores' scripts, prepended to a script's body.
 *
 * `extend_ttl(key, ms)` gives `key` at least `ms` more milliseconds to live: a key without an
 * expiry gets one, a key that would live longer keeps its own. (`PEXPIRE ... GT` would not do:
 * Redis treats a key without an expiry as living forever, so GT never sets a first TTL.)
 */
export const LUA_EXTEND_TTL = `
local function extend_ttl(key, ms)
  local left = redis.call('PTTL', key)
  if left == -1 or (left >= 0 and left < ms) then
    redis.call('PEXPIRE', key, ms)
  end
end
`;

/**
 * `existing_members(set, key_base)`: the members of `set` whose key `key_base .. member` still
 * exists; the others (their key expired) are removed from the set.
 */
export const LUA_EXISTING_MEMBERS = `
local function existing_members(set, key_base)
  local kept = {}
  for _, member in ipairs(redis.call('SMEMBERS', set)) do
    if redis.call('EXISTS', key_base .. member) == 1 then
      kept[#kept + 1] = member
    else
      redis.call('SREM', set, member)
    end
  end
  return kept
end
`;
