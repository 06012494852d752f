// The queries on boards other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { boardsSharedWith, getBoardMember, getBoards, lockBoard, memberRoles } from './store.js'
