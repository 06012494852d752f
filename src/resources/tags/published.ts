// The queries on tags other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getTags, insertTag, tagsOfBoard } from './store.js'
