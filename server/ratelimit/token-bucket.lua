-- Token bucket for one client, atomically: the twin of token-bucket.ts, step for step and with the
-- same rounding, so the memory and Redis stores decide alike (test/ratelimit runs one suite on both).
-- KEYS[1]  the client's state: "atMs tokens1 tokens2 ..."
-- ARGV     nowMs ("" = this server's TIME), cost, ttlMs, then limit periodMs burst for each lane
-- returns  {allowed 0/1, remaining, resetMs, retryAfterMs, nowMs, state as stored}: the last two
--          let the instance answer an exempt request's look from memory (recent-states.ts)
local EPS = 1e-9
local function ceil_ms(ms) return math.max(0, math.ceil(ms - 1e-6)) end
local function num(x) return string.format('%.17g', x) end

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local cost, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])

local stored = {}
local raw = redis.call('GET', KEYS[1])
if raw then
  for v in string.gmatch(raw, '%S+') do stored[#stored + 1] = tonumber(v) end
end
local at = stored[1] or now
local elapsed = math.max(0, now - at)

local buckets, allowed = {}, true
for i = 1, (#ARGV - 3) / 3 do
  local limit, period, burst = tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i + 3])
  local rate = limit / period
  local b = { capacity = burst, rate = rate, need = math.min(cost, burst) }
  b.tokens = math.min(burst, (stored[i + 1] or burst) + elapsed * rate)
  if b.tokens < b.need - EPS then allowed = false end
  buckets[i] = b
end

local wait, remaining, reset = 0, nil, 0
local state = { num(math.max(now, at)) }
for i, b in ipairs(buckets) do
  if allowed then
    b.tokens = b.tokens - b.need
  else
    wait = math.max(wait, math.max(0, b.need - b.tokens) / b.rate)
  end
  local r, z = math.floor(b.tokens + EPS), ceil_ms((b.capacity - b.tokens) / b.rate)
  if remaining == nil or r < remaining or (r == remaining and z > reset) then remaining, reset = r, z end
  state[i + 1] = num(b.tokens)
end
local stored_state = table.concat(state, ' ')
redis.call('SET', KEYS[1], stored_state, 'PX', ttl)
if allowed then wait = 0 else wait = math.max(1, ceil_ms(wait)) end
return { allowed and 1 or 0, remaining, reset, wait, num(now), stored_state }
