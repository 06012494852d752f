// The commands that run the server or load every family (serve, export, import, doctor), bundled apart from the
// rest of the command line (scripts/bundle.mjs: dist/src/taskd-server.cjs, in the binary the asset of that name).
// The command line's bundle loads this one only when such a command runs, so short commands (`--version`,
// `token create`) start without reading, compiling or deserialising the server's code.
export { serve } from './serve.js'
export { exportWorkspace, importWorkspace } from './workspace.js'
export { doctor } from './doctor.js'
