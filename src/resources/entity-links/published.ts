// The queries on entity links other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { subtaskCounts } from './store.js'
