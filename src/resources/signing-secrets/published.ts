// The queries on signing secrets other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getSigningSecrets } from './store.js'
