// The queries on incoming endpoints other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getIncoming } from './store.js'
