-- Sliding window for one client, atomically: the twin of sliding-window.ts, step for step and with
-- the same rounding, so the memory and Redis stores decide alike (test/ratelimit runs one suite on
-- both).
-- KEYS[1]  the client's state: a hash "<lane>:<slot>" -> cost let through in that slot
-- ARGV     nowMs ("" = this server's TIME), cost, ttlMs, slots per window, then limit periodMs per lane
-- returns  {allowed 0/1, remaining, resetMs, retryAfterMs, nowMs, slots}: the last two let the
--          instance answer an exempt request's look from memory (recent-states.ts); slots are
--          "slot count slot count ..." per lane, oldest first, lanes joined by ';'
local EPS = 1e-9
local function ceil_ms(ms) return math.max(0, math.ceil(ms - 1e-6)) end
local function num(x) return string.format('%.17g', x) end

local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local cost, ttl, SLOTS = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local lanes = (#ARGV - 4) / 2

local stored = {}
for i = 1, lanes do stored[i] = {} end
local flat = redis.call('HGETALL', KEYS[1])
for j = 1, #flat, 2 do
  local lane, slot = string.match(flat[j], '^(%d+):(%d+)$')
  local list = lane and stored[tonumber(lane) + 1]
  if list then list[#list + 1] = { slot = tonumber(slot), count = tonumber(flat[j + 1]), field = flat[j] } end
end

local function sum(slots)
  local total = 0
  for _, s in ipairs(slots) do total = total + s.count end
  return total
end

local windows, allowed = {}, true
for i = 1, lanes do
  local limit, period = tonumber(ARGV[2 * i + 3]), tonumber(ARGV[2 * i + 4])
  local w = { lane = i - 1, limit = limit, slot_ms = period / SLOTS, slots = {}, need = math.min(cost, limit) }
  w.current = math.floor(now / w.slot_ms)
  table.sort(stored[i], function(a, b) return a.slot < b.slot end)
  for _, s in ipairs(stored[i]) do
    if s.slot >= w.current - SLOTS then
      w.slots[#w.slots + 1] = s
    else
      redis.call('HDEL', KEYS[1], s.field)
    end
  end
  w.used = sum(w.slots)
  if w.used + w.need > limit + EPS then allowed = false end
  windows[i] = w
end

local function expiry(w, slot) return (slot + SLOTS + 1) * w.slot_ms end

local function wait_for(w)
  local used = w.used
  for _, s in ipairs(w.slots) do
    if used + w.need <= w.limit + EPS then break end
    used = used - s.count
    if used + w.need <= w.limit + EPS then return expiry(w, s.slot) - now end
  end
  return 0
end

local wait, remaining, reset, kept = 0, nil, 0, {}
for i, w in ipairs(windows) do
  -- A look without a charge (cost 0) must not open a slot: an empty slot would still set the reset.
  if allowed and cost > 0 then
    local last = w.slots[#w.slots]
    -- A clock that stepped back still charges the newest slot, keeping the slots in order.
    if not (last and last.slot >= w.current) then
      last = { slot = w.current, count = 0, field = w.lane .. ':' .. w.current }
      w.slots[#w.slots + 1] = last
    end
    last.count = last.count + w.need
    redis.call('HSET', KEYS[1], last.field, num(last.count))
  elseif not allowed then
    wait = math.max(wait, wait_for(w))
  end
  local r = math.max(0, math.floor(w.limit - sum(w.slots) + EPS))
  local z = 0
  if #w.slots > 0 then z = ceil_ms(expiry(w, w.slots[#w.slots].slot) - now) end
  if remaining == nil or r < remaining or (r == remaining and z > reset) then remaining, reset = r, z end
  local text = {}
  for _, s in ipairs(w.slots) do text[#text + 1] = num(s.slot) .. ' ' .. num(s.count) end
  kept[i] = table.concat(text, ' ')
end
redis.call('PEXPIRE', KEYS[1], ttl)
if allowed then wait = 0 else wait = math.max(1, ceil_ms(wait)) end
return { allowed and 1 or 0, remaining, reset, wait, num(now), table.concat(kept, ';') }
