// The queries on milestones other families may run directly: cards check the milestone they are given.
export { getMilestone } from './store.js'
