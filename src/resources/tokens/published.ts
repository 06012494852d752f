// The queries on tokens other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { downgradeFullTokens } from './store.js'
