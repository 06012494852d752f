// The V8 settings taskd runs with: from the checkout (bin/taskd.js starts node with them) and in the single binary
// (scripts/build-binary.mjs, the SEA's execArgv); the read processes get them too (src/db/read-pool.ts).
// - A young generation of at most 2 × 8 MB, where V8 would size it by the machine's memory (2 × 32 MB with 24 GiB):
//   some 50 MB less at peak, at the same throughput (bench/README.md, "Bundle, V8 settings and memory"). Smaller than 8
//   costs memory instead: objects of requests in flight are promoted to the old generation.
// - Optimizing compiles (Maglev, TurboFan) on the main thread, not queued to V8's helper threads: the queued jobs kept
//   ~25 MB of the compilers' malloc memory after warm-up, in one arena or many (MALLOC_ARENA_MAX made no difference);
//   on the main thread it stays at ~3 MB. 15–25 MB less at peak, at the same throughput and cold start
//   (bench/README.md, "Optimizing compiles on the main thread").
export const V8_FLAGS = ['--max-semi-space-size=8', '--no-concurrent-recompilation']
