// The queries on lists other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getList, getLists, insertList, listsOfBoard, listsOfBoards } from './store.js'
