// The queries on comments other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { commentsOfCard } from './store.js'
