// The queries on dependencies other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { openBlockerCounts } from './store.js'
