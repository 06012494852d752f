// The queries on agent kickoffs other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { cancelUndelivered, getKickoff } from './store.js'
