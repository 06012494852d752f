// The queries on users other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { agentsOwnedBy, firstOwner, getAgentProfile, getUser, getUsers } from './store.js'
