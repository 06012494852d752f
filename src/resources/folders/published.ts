// The queries on folders other families may run directly: boards check the folder they are put in.
export { getFolder } from './store.js'
