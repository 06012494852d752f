// The queries on agent workflows other families may run directly (in their own transaction): nothing else of store.ts is theirs.
export { defaultWorkflowOf, getWorkflow, stepsOfWorkflow } from './store.js'
