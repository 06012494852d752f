// The queries on board statuses other families may run directly (in their own transaction): a new or cloned board's
// statuses, the status of a page of cards' lists, and the list a card given a status goes to.
export { firstListWithStatus, getStatus, insertStatus, recategorizeStatus, statusesOfBoard, statusesOfLists } from './store.js'
