// The V8 settings taskd runs with: from the checkout (bin/taskd.js starts node with them) and in the single binary
// (scripts/build-binary.mjs, the SEA's execArgv). A young generation of at most 2 × 8 MB, where V8 would size it by the
// machine's memory (2 × 32 MB with 24 GiB): some 50 MB less at peak, at the same throughput (bench/README.md, "Bundle, V8 settings and memory").
// Smaller than 8 costs memory instead: objects of requests in flight are promoted to the old generation.
export const V8_FLAGS = ['--max-semi-space-size=8']
