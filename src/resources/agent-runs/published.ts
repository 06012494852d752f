// The queries on agent runs other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { getRun, insertRun, lockRun, moveAgentRecords, runsOfCards, updateRunRow } from './store.js'
