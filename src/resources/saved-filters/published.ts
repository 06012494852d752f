// What other families use of saved filters: the cards list applies one the caller sees (GET /v1/cards?saved_filter=).
export { savedFilterSeenBy } from './store.js'
