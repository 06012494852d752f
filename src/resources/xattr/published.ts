// What other families use of custom fields: a card's values (values.ts), the board copy, the value copy, and the
// fields and options a form's mappings are checked against.
export { dropValuesOfCard } from './store.js'
export { fieldsOfBoards, optionsOfFields } from './store.js'
