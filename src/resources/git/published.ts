// The queries on git records other families may run directly (in their own transaction): pipelines find their
// repository and the cards their branch or head commit mention through these, and see and link their cards as git
// resources do (visibleLinkedQuery, linkCardsTo).
export { boardsOfCards, cardsMentioned, cardsOfRefs, getRepository, linkCardsTo, repositoriesNamed, visibleLinkedQuery } from './store.js'
