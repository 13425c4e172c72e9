-- wrk script for scripts/bench.py: counts the responses by status and prints one line
--   BENCH {"requests": …, "seconds": …, "p50_us": …, "p99_us": …, "statuses": {"200": …}, …}
-- at the end. GET mode (no script arguments): wrk's own request, headers from -H.
-- Flag mode: wrk … -s scripts/bench.lua URL -- flags CELLS_FILE CLIENTS PHASE EXPLANATION [close]
--   POSTs a flag as JSON to the URL's path, each request on the next cell id of CELLS_FILE (one per
--   line) from the next of CLIENTS client addresses (X-Forwarded-For 10.PHASE.x.y; the server trusts
--   one proxy), so no client flags a cell twice; "close" adds Connection: close (no keep-alive, as
--   a proxy speaking HTTP/1.0 to the app).

local threads = {}

function setup(thread)
   table.insert(threads, thread)
   thread:set("thread_id", #threads - 1)
end

local mode = "get"
local cells = {}
local clients = 1
local phase = 0
local explanation = ""
local close = false
local counter = 0
statuses = {}

function init(args)
   if args[1] == "flags" then
      mode = "flags"
      for line in io.lines(args[2]) do
         table.insert(cells, tonumber(line))
      end
      clients = tonumber(args[3])
      phase = tonumber(args[4])
      explanation = args[5]
      close = args[6] == "close"
   end
end

function request()
   if mode ~= "flags" then
      return wrk.format()
   end
   -- thread t takes requests t, t + 1000003, …: threads never share a (client, cell) pair
   local i = counter + thread_id * 1000003
   counter = counter + 1
   local cell = cells[(i % #cells) + 1]
   local client = i % clients
   local body = string.format(
      '{"cell": %d, "reason": "other", "explanation": "%s"}', cell, explanation)
   local headers = {
      ["Host"] = wrk.headers["Host"],
      ["Content-Type"] = "application/json",
      ["X-Forwarded-Proto"] = "https",
      ["X-Forwarded-For"] = string.format(
         "10.%d.%d.%d", phase, math.floor(client / 256) % 256, client % 256),
   }
   if close then
      headers["Connection"] = "close"
   end
   return wrk.format("POST", wrk.path, headers, body)
end

function response(status, headers, body)
   local key = tostring(status)
   statuses[key] = (statuses[key] or 0) + 1
end

function done(summary, latency, requests)
   local merged = {}
   for _, thread in ipairs(threads) do
      local counts = thread:get("statuses")
      for key, n in pairs(counts) do
         merged[key] = (merged[key] or 0) + n
      end
   end
   local parts = {}
   for key, n in pairs(merged) do
      table.insert(parts, string.format('"%s": %d', key, n))
   end
   local e = summary.errors
   io.write(string.format(
      'BENCH {"requests": %d, "seconds": %.6f, "p50_us": %d, "p99_us": %d, "mean_us": %.1f, '
         .. '"socket_errors": %d, "statuses": {%s}}\n',
      summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
      latency.mean, e.connect + e.read + e.write + e.timeout, table.concat(parts, ", ")))
end
