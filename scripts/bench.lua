-- wrk script for scripts/bench.py. Arguments: EXPECTED_STATUS [CELLS_FILE CLIENTS PHASE EXPLANATION].
-- With a cells file, request i POSTs a flag as JSON on cell i of the file (one id a line) from
-- client i mod CLIENTS (X-Forwarded-For 10.PHASE.x.y), so no client flags a cell twice. Prints
--   BENCH <requests> <seconds> <p50 µs> <p99 µs> <unexpected answers and socket errors>
local threads, cells = {}, {}
local expected, clients, phase, explanation, counter = 200, 1, 0, "", 0
unexpected = 0

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   expected = tonumber(args[1])
   if args[2] then
      for line in io.lines(args[2]) do
         table.insert(cells, tonumber(line))
      end
      clients, phase, explanation = tonumber(args[3]), tonumber(args[4]), args[5]
   end
end

function request()
   if #cells == 0 then
      return wrk.format()
   end
   local i, client = counter, counter % clients
   counter = counter + 1
   local body = string.format(
      '{"cell": %d, "reason": "other", "explanation": "%s"}', cells[i % #cells + 1], explanation)
   local headers = {
      ["Host"] = wrk.headers["Host"],
      ["Content-Type"] = "application/json",
      ["X-Forwarded-For"] = string.format(
         "10.%d.%d.%d", phase, math.floor(client / 256) % 256, client % 256),
   }
   return wrk.format("POST", wrk.path, headers, body)
end

function response(status)
   if status ~= expected then
      unexpected = unexpected + 1
   end
end

function done(summary, latency)
   local bad = 0
   for _, thread in ipairs(threads) do
      bad = bad + thread:get("unexpected")
   end
   local e = summary.errors
   io.write(string.format("BENCH %d %.6f %d %d %d\n", summary.requests, summary.duration / 1e6,
      latency:percentile(50), latency:percentile(99), bad + e.connect + e.read + e.write + e.timeout))
end
