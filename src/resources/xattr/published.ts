// What other families use of custom fields: a card's values (values.ts), the board copy, and the value copy.
export { dropValuesOfCard } from './store.js'
export { fieldsOfBoards } from './store.js'
