// The queries on time entries other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { runningEntryOf } from './store.js'
