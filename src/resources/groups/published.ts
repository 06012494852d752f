// The queries on groups other families may run directly: a board adds every member of a group at once.
export { getGroup, membersOfGroups } from './store.js'
