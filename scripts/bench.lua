-- wrk script for scripts/bench.py. Arguments: EXPECTED_STATUS [CELLS_FILE CLIENTS PHASE EXPLANATION START].
-- With a cells file, request i POSTs a flag as JSON on cell START + i of the file (one id a line) from
-- client i mod CLIENTS (X-Forwarded-For 10.PHASE.x.y), so no client flags a cell twice. Prints
--   BENCH <requests> <seconds> <p50 µs> <p99 µs> <unexpected answers and socket errors>
local threads, cells, expected, clients, phase, explanation, start, i = {}, {}, 200, 1, 0, "", 0, -1
unexpected = 0

function setup(thread) table.insert(threads, thread) end

function init(args)
   expected = tonumber(args[1])
   for line in io.lines(args[2] or "/dev/null") do table.insert(cells, tonumber(line)) end
   clients, phase, explanation = tonumber(args[3] or 1), tonumber(args[4] or 0), args[5]; start = tonumber(args[6] or 0)
end

function request()
   if #cells == 0 then return wrk.format() end
   i = i + 1
   local client = i % clients
   local body = string.format(
      '{"cell": %d, "reason": "other", "explanation": "%s"}', cells[(start + i) % #cells + 1], explanation)
   local address = string.format("10.%d.%d.%d", phase, math.floor(client / 256), client % 256)
   local headers = {Host = wrk.headers.Host, ["Content-Type"] = "application/json"}
   headers["X-Forwarded-For"] = address
   return wrk.format("POST", wrk.path, headers, body)
end

function response(status)
   if status ~= expected then unexpected = unexpected + 1 end
end

function done(summary, latency)
   local e = summary.errors
   local bad = e.connect + e.read + e.write + e.timeout
   for _, thread in ipairs(threads) do bad = bad + thread:get("unexpected") end
   io.write(string.format("BENCH %d %.6f %d %d %d\n", summary.requests, summary.duration / 1e6,
      latency:percentile(50), latency:percentile(99), bad))
end
