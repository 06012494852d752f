// The queries on files other families run in their own transactions: incoming endpoints completing, capping and
// reading the files of their requests, automations copying a request's files onto the card they made. Writing the
// bytes themselves is chunks.ts.
export { capRequestFiles, copyFile, deleteFileRows, getFiles, markComplete } from './store.js'
