// The queries on checklists other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { checklistsOfCards, insertChecklist, insertItems, itemsOfChecklists, progressOfCards } from './store.js'
