// The V8 flags the api and worker processes are started with (the mcp process has its own, below): the Dockerfiles' CMD, `npm start` (package.json "serve"),
// the topology check and the benchmarks (scripts/infra-check.mjs checks the first two against this list).
//
// A young generation fixed at 32 MB per semi-space. V8's default starts at 1 MB, grows to 16 MB under load and is
// shrunk again by its memory reducer whenever the process idles, after which a steady 100 req/s did not grow it back:
// measured with --trace-gc at 1 000 000 tasks, a list request then ran with scavenges every 40 to 100 ms, and each
// kept objects of requests still in flight, promoting them, so the old generation filled and a mark-compact paused
// the process (up to 17 ms) every few seconds. At 32 MB a scavenge comes every 400 ms, almost nothing is promoted and
// no mark-compact ran in a 30 s run. The cost in resident memory: about 20 MB per process at idle (the embedded
// server after start: 438 MB against 419), up to about 50 MB under load (V8's heap: 106 MB against 58).
// (--min-semi-space-size may not go in NODE_OPTIONS, so these are command-line flags.)
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32', '--min-semi-space-size=32'];

// The mcp process: a young generation of 8 MB per semi-space. Its requests promote about as much at 8 MB as at 32 (the
// soak's calibration, every operation in both eras: 14.8 against 14.5 KB a request on the 2025 side), because what
// survives is not what a scavenge catches in flight, so the larger space only costs memory: 48 MB of resident memory
// at idle (121 MB against 168), which is the margin that keeps the process under 200 MB at 120 calls a second
// (docs/operations.md, "Memory of the mcp gateway").
export const MCP_NODE_FLAGS = ['--max-semi-space-size=8', '--min-semi-space-size=8'];

/** The flags of an app's process (api, mcp, worker; anything else runs with the services' flags). */
export const nodeFlagsFor = (app) => (app === 'mcp' ? MCP_NODE_FLAGS : SERVICE_NODE_FLAGS);
