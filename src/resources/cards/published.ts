// The queries on cards other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { countCardsInList, getCard, loadCardLinks, watchersOf } from './store.js'
