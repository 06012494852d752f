// The queries on automations other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { automationsOfEndpoint, automationsUsingSecret, listeningToEndpoint, readAheadEventAutomations, runsOfRequests } from './store.js'
