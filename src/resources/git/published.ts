// The queries on git records other families may run directly (in their own transaction): pipelines find their
// repository and the cards their branch or head commit mention through these.
export { boardsOfCards, cardsMentioned, cardsOfRefs, getConnection, getRepositories, getRepository, repositoriesNamed } from './store.js'
