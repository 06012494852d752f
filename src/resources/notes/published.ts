// The queries on notes other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getNote } from './store.js'
